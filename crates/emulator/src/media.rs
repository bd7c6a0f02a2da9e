//! What the emulator reads of uploaded files (docs/discord.md §10.2): the bytes of a
//! data URI, an image's format (by its magic bytes, not the type the URI claims), whether
//! it is animated, a sticker's format and size, and how long a sound plays.
//!
//! Discord decodes every upload; the emulator reads only headers, enough to apply the
//! documented rules (formats, sizes, dimensions, duration) to real files and to refuse
//! what is not one.

/// Standard base64 (RFC 4648 §4, padding optional) decoded; `None` for any other character.
pub(crate) fn decode_base64(s: &str) -> Option<Vec<u8>> {
    fn val(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let s = s.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for chunk in s.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// `data:<mime>;base64,<data>` decoded: the type it names and its bytes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DataUri {
    pub mime: String,
    pub bytes: Vec<u8>,
}

pub(crate) fn data_uri(s: &str) -> Option<DataUri> {
    let (head, data) = s.split_once(',')?;
    let mime = head.strip_prefix("data:")?.strip_suffix(";base64")?;
    if mime.is_empty() || data.is_empty() {
        return None;
    }
    Some(DataUri {
        mime: mime.to_ascii_lowercase(),
        bytes: decode_base64(data)?,
    })
}

/// The image formats Discord takes for emoji (resources/emoji, "Emoji Formats").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    Webp,
    Avif,
}

impl ImageFormat {
    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
            ImageFormat::Avif => "image/avif",
        }
    }
}

/// The format of an image file, by its header; `None` for anything else.
pub(crate) fn image_format(bytes: &[u8]) -> Option<ImageFormat> {
    use imagesize::{Compression, ImageType};
    match imagesize::image_type(bytes).ok()? {
        ImageType::Png => Some(ImageFormat::Png),
        ImageType::Jpeg => Some(ImageFormat::Jpeg),
        ImageType::Gif => Some(ImageFormat::Gif),
        ImageType::Webp => Some(ImageFormat::Webp),
        ImageType::Heif(Compression::Av1) => Some(ImageFormat::Avif),
        _ => None,
    }
}

/// Whether an emoji image moves: a GIF (the emulator does not count its frames, as
/// `images::is_animated`), or a WebP whose `VP8X` header has the animation flag.
pub(crate) fn is_animated(bytes: &[u8], format: ImageFormat) -> bool {
    match format {
        ImageFormat::Gif => true,
        ImageFormat::Webp => {
            bytes.get(12..16) == Some(b"VP8X") && bytes.get(20).is_some_and(|f| f & 0x02 != 0)
        }
        _ => false,
    }
}

/// Sticker format types (resources/sticker).
pub(crate) const STICKER_PNG: u8 = 1;
pub(crate) const STICKER_APNG: u8 = 2;
pub(crate) const STICKER_LOTTIE: u8 = 3;
pub(crate) const STICKER_GIF: u8 = 4;

/// A sticker file: its format type, and its width and height when it is an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StickerFile {
    pub format_type: u8,
    pub size: Option<(u64, u64)>,
}

/// Reads a sticker file: PNG (APNG when it has an `acTL` chunk before its image data),
/// GIF, or Lottie (a JSON object with `layers`); `None` for anything else.
pub(crate) fn sticker_file(bytes: &[u8]) -> Option<StickerFile> {
    let image = |format_type| {
        let s = imagesize::blob_size(bytes).ok()?;
        Some(StickerFile {
            format_type,
            size: Some((s.width as u64, s.height as u64)),
        })
    };
    match image_format(bytes) {
        Some(ImageFormat::Png) if is_apng(bytes) => image(STICKER_APNG),
        Some(ImageFormat::Png) => image(STICKER_PNG),
        Some(ImageFormat::Gif) => image(STICKER_GIF),
        Some(_) => None,
        None => {
            let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
            v.get("layers")?.as_array()?;
            Some(StickerFile {
                format_type: STICKER_LOTTIE,
                size: None,
            })
        }
    }
}

/// Whether a PNG is animated: an `acTL` chunk comes before the first `IDAT` (APNG).
fn is_apng(bytes: &[u8]) -> bool {
    let mut pos = 8;
    while let Some(head) = bytes.get(pos..pos + 8) {
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        match &head[4..8] {
            b"acTL" => return true,
            b"IDAT" | b"IEND" => return false,
            _ => {}
        }
        pos = pos.saturating_add(12).saturating_add(len);
    }
    false
}

/// The sound formats Discord takes for the soundboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AudioFormat {
    Mp3,
    Ogg,
}

impl AudioFormat {
    pub fn mime(self) -> &'static str {
        match self {
            AudioFormat::Mp3 => "audio/mpeg",
            AudioFormat::Ogg => "audio/ogg",
        }
    }
}

/// A sound file's format and how long it plays, in seconds; `None` when it is neither a
/// readable MP3 nor a readable Ogg (Vorbis or Opus) stream.
pub(crate) fn audio(bytes: &[u8]) -> Option<(AudioFormat, f64)> {
    if bytes.starts_with(b"OggS") {
        ogg_seconds(bytes).map(|s| (AudioFormat::Ogg, s))
    } else {
        mp3_seconds(bytes).map(|s| (AudioFormat::Mp3, s))
    }
}

/// The length of an Ogg stream: the granule position of the first logical stream's last
/// page (samples since its start) over its sample rate, less Opus's pre-skip. Vorbis
/// names its rate in its identification header; Opus always counts at 48 kHz. Every page
/// must be whole, and nothing may follow the last one.
fn ogg_seconds(b: &[u8]) -> Option<f64> {
    let mut pos = 0usize;
    let mut serial = None;
    let mut rate = 0u32;
    let mut pre_skip = 0u64;
    let mut last_granule = None;
    while pos < b.len() {
        let head = b.get(pos..pos + 27)?;
        if &head[..4] != b"OggS" || head[4] != 0 {
            return None;
        }
        let granule = i64::from_le_bytes(head[6..14].try_into().ok()?);
        let page_serial = u32::from_le_bytes(head[14..18].try_into().ok()?);
        let segments = usize::from(head[26]);
        let table = b.get(pos + 27..pos + 27 + segments)?;
        let body_start = pos + 27 + segments;
        let body_len: usize = table.iter().map(|&n| usize::from(n)).sum();
        let body = b.get(body_start..body_start + body_len)?;
        if serial.is_none() {
            // The first page opens the stream with its codec's header.
            serial = Some(page_serial);
            if body.starts_with(b"\x01vorbis") {
                rate = u32::from_le_bytes(body.get(12..16)?.try_into().ok()?);
            } else if body.starts_with(b"OpusHead") {
                rate = 48_000;
                pre_skip = u64::from(u16::from_le_bytes(body.get(10..12)?.try_into().ok()?));
            } else {
                return None;
            }
        }
        // -1: no packet ends on this page.
        if serial == Some(page_serial) && granule >= 0 {
            last_granule = Some(granule as u64);
        }
        pos = body_start + body_len;
    }
    if rate == 0 {
        return None;
    }
    Some(last_granule?.saturating_sub(pre_skip) as f64 / f64::from(rate))
}

/// The length of an MP3 stream: every MPEG audio frame walked and its samples counted, so
/// variable bitrates need no Xing header. An ID3v2 tag before and an ID3v1 tag after are
/// skipped; anything else that is not a frame makes the file unreadable (`None`), and so
/// does a file without a whole frame. A frame cut short at the end is not counted.
fn mp3_seconds(b: &[u8]) -> Option<f64> {
    let mut pos = 0usize;
    if b.starts_with(b"ID3") {
        let h = b.get(..10)?;
        let size = h[6..10]
            .iter()
            .fold(0usize, |acc, &x| (acc << 7) | usize::from(x & 0x7f));
        let footer = if h[5] & 0x10 != 0 { 10 } else { 0 };
        pos = 10 + size + footer;
    }
    let mut seconds = 0.0;
    let mut frames = 0u32;
    while let Some(h) = b.get(pos..pos + 4) {
        if h.starts_with(b"TAG") {
            break;
        }
        let (len, duration) = mp3_frame(u32::from_be_bytes([h[0], h[1], h[2], h[3]]))?;
        if pos + len > b.len() {
            break;
        }
        seconds += duration;
        frames += 1;
        pos += len;
    }
    (frames > 0).then_some(seconds)
}

/// An MPEG audio frame header: (frame length in bytes, seconds it plays), or `None` when
/// it is not one (no sync, a reserved value, or free-format bitrate).
fn mp3_frame(h: u32) -> Option<(usize, f64)> {
    if h & 0xFFE0_0000 != 0xFFE0_0000 {
        return None;
    }
    // Version: 0 MPEG 2.5, 2 MPEG 2, 3 MPEG 1. Layer: 1 III, 2 II, 3 I.
    let version = (h >> 19) & 3;
    let layer = (h >> 17) & 3;
    let bitrate_index = ((h >> 12) & 0xF) as usize;
    let rate_index = ((h >> 10) & 3) as usize;
    let padding = ((h >> 9) & 1) as usize;
    if version == 1 || layer == 0 || bitrate_index == 0 || bitrate_index == 15 || rate_index == 3 {
        return None;
    }
    const V1_L1: [u32; 15] = [
        0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448,
    ];
    const V1_L2: [u32; 15] = [
        0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384,
    ];
    const V1_L3: [u32; 15] = [
        0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
    ];
    const V2_L1: [u32; 15] = [
        0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256,
    ];
    const V2_L23: [u32; 15] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
    let mpeg1 = version == 3;
    let kbps = match (mpeg1, layer) {
        (true, 3) => V1_L1,
        (true, 2) => V1_L2,
        (true, _) => V1_L3,
        (false, 3) => V2_L1,
        (false, _) => V2_L23,
    }[bitrate_index];
    let rate = match version {
        3 => [44_100, 48_000, 32_000],
        2 => [22_050, 24_000, 16_000],
        _ => [11_025, 12_000, 8_000],
    }[rate_index];
    let bitrate = kbps as usize * 1000;
    let (samples, len) = match layer {
        3 => (384, (12 * bitrate / rate + padding) * 4),
        2 => (1152, 144 * bitrate / rate + padding),
        _ if mpeg1 => (1152, 144 * bitrate / rate + padding),
        _ => (576, 72 * bitrate / rate + padding),
    };
    Some((len, samples as f64 / rate as f64))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("aGk=").unwrap(), b"hi");
        assert_eq!(decode_base64("YWJj").unwrap(), b"abc");
        assert!(decode_base64("a$c=").is_none());
    }

    /// `n` MPEG-1 layer III frames at 128 kbit/s, 44.1 kHz: 417 bytes and 1152 samples
    /// each.
    pub fn mp3(n: usize) -> Vec<u8> {
        let mut frame = vec![0u8; 417];
        frame[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
        frame.repeat(n)
    }

    /// An Ogg page of one stream.
    fn ogg_page(granule: i64, first: bool, body: &[u8]) -> Vec<u8> {
        let mut p = b"OggS\0".to_vec();
        p.push(if first { 0x02 } else { 0 });
        p.extend(granule.to_le_bytes());
        p.extend(7u32.to_le_bytes());
        p.extend([0u8; 8]); // sequence number and checksum
        let mut table = vec![255u8; body.len() / 255];
        table.push((body.len() % 255) as u8);
        p.push(table.len() as u8);
        p.extend(table);
        p.extend(body);
        p
    }

    /// A Vorbis stream at `rate` Hz that ends after `samples` samples.
    pub fn ogg_vorbis(rate: u32, samples: i64) -> Vec<u8> {
        let mut id = b"\x01vorbis".to_vec();
        id.extend(0u32.to_le_bytes());
        id.push(2);
        id.extend(rate.to_le_bytes());
        id.extend([0u8; 14]);
        let mut out = ogg_page(0, true, &id);
        out.extend(ogg_page(-1, false, &[0; 300]));
        out.extend(ogg_page(samples / 2, false, &[1; 600]));
        out.extend(ogg_page(samples, false, &[2; 40]));
        out
    }

    #[test]
    fn mp3_length_is_the_sum_of_its_frames() {
        let (f, s) = audio(&mp3(100)).unwrap();
        assert_eq!(f, AudioFormat::Mp3);
        assert!((s - 100.0 * 1152.0 / 44100.0).abs() < 1e-9, "{s}");
        // An ID3v2 tag (syncsafe size 0x0101 = 129 bytes) before, ID3v1 after.
        let mut tagged = b"ID3\x04\x00\x00\x00\x00\x01\x01".to_vec();
        tagged.extend([0u8; 129]);
        tagged.extend(mp3(10));
        tagged.extend(b"TAG");
        tagged.extend([0u8; 125]);
        let (_, s) = audio(&tagged).unwrap();
        assert!((s - 10.0 * 1152.0 / 44100.0).abs() < 1e-9, "{s}");
        // Padding adds a byte; MPEG-2 layer III frames hold 576 samples.
        let mut padded = vec![0u8; 418];
        padded[..4].copy_from_slice(&[0xFF, 0xFB, 0x92, 0x00]);
        assert!(audio(&padded.repeat(3)).is_some());
        let (len, secs) = mp3_frame(0xFFF3_9000).unwrap();
        // Bitrate index 9 is 80 kbit/s for MPEG-2 layer III.
        assert_eq!(len, 72 * 80_000 / 22_050);
        assert!((secs - 576.0 / 22050.0).abs() < 1e-12);
    }

    #[test]
    fn what_is_not_mp3_is_refused() {
        assert_eq!(audio(b""), None);
        assert_eq!(audio(b"RIFF....WAVEfmt "), None);
        // Lost sync in the middle.
        let mut broken = mp3(3);
        broken[417] = 0;
        assert_eq!(audio(&broken), None);
        // Free-format and reserved bitrates.
        assert_eq!(mp3_frame(0xFFFB_0000), None);
        assert_eq!(mp3_frame(0xFFFB_F000), None);
        // A frame cut short is not a frame.
        assert_eq!(audio(&mp3(1)[..200]), None);
    }

    #[test]
    fn ogg_length_is_the_last_granule_over_the_rate() {
        let (f, s) = audio(&ogg_vorbis(48_000, 48_000 * 5)).unwrap();
        assert_eq!(f, AudioFormat::Ogg);
        assert_eq!(s, 5.0);
        let (_, s) = audio(&ogg_vorbis(44_100, 44_100 * 6 + 22_050)).unwrap();
        assert_eq!(s, 6.5);
        // Opus counts at 48 kHz, less its pre-skip.
        let mut head = b"OpusHead\x01\x02".to_vec();
        head.extend(312u16.to_le_bytes());
        head.extend([0u8; 7]);
        let mut opus = ogg_page(0, true, &head);
        opus.extend(ogg_page(0, false, b"OpusTags"));
        opus.extend(ogg_page(48_000 * 3 + 312, false, &[9; 100]));
        assert_eq!(audio(&opus), Some((AudioFormat::Ogg, 3.0)));
    }

    #[test]
    fn what_is_not_ogg_is_refused() {
        let good = ogg_vorbis(48_000, 48_000);
        assert_eq!(audio(&good[..good.len() - 1]), None, "a page cut short");
        let mut trailing = good.clone();
        trailing.extend(b"junk");
        assert_eq!(audio(&trailing), None);
        let mut speex = ogg_page(0, true, b"Speex   ");
        speex.extend(ogg_page(100, false, &[0; 4]));
        assert_eq!(audio(&speex), None, "a codec the emulator cannot time");
    }

    fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        c.extend(kind);
        c.extend(data);
        c.extend([0u8; 4]);
        c
    }

    pub fn png(w: u32, h: u32, animated: bool) -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = w.to_be_bytes().to_vec();
        ihdr.extend(h.to_be_bytes());
        ihdr.extend([8, 6, 0, 0, 0]);
        out.extend(png_chunk(b"IHDR", &ihdr));
        if animated {
            out.extend(png_chunk(b"acTL", &[0, 0, 0, 2, 0, 0, 0, 0]));
        }
        out.extend(png_chunk(b"IDAT", &[0; 16]));
        out.extend(png_chunk(b"IEND", &[]));
        out
    }

    #[test]
    fn stickers_are_png_apng_gif_or_lottie() {
        let f = sticker_file(&png(320, 320, false)).unwrap();
        assert_eq!((f.format_type, f.size), (STICKER_PNG, Some((320, 320))));
        let f = sticker_file(&png(160, 90, true)).unwrap();
        assert_eq!((f.format_type, f.size), (STICKER_APNG, Some((160, 90))));
        let mut gif = b"GIF89a".to_vec();
        gif.extend(300u16.to_le_bytes());
        gif.extend(200u16.to_le_bytes());
        gif.extend([0u8; 8]);
        let f = sticker_file(&gif).unwrap();
        assert_eq!((f.format_type, f.size), (STICKER_GIF, Some((300, 200))));
        let lottie = br#"{"v":"5.5.2","w":320,"h":320,"layers":[]}"#;
        assert_eq!(sticker_file(lottie).unwrap().format_type, STICKER_LOTTIE);
        assert_eq!(sticker_file(br#"{"no":"layers"}"#), None);
        assert_eq!(sticker_file(b"\xFF\xD8\xFF\xE0 a jpeg"), None);
    }

    #[test]
    fn images_are_sniffed_by_their_bytes() {
        assert_eq!(image_format(&png(1, 1, false)), Some(ImageFormat::Png));
        assert_eq!(
            image_format(b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01"),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(
            image_format(b"GIF87a\x01\x00\x01\x00\x00\x00"),
            Some(ImageFormat::Gif)
        );
        let mut webp = b"RIFF\x1a\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00".to_vec();
        webp.extend([0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(image_format(&webp), Some(ImageFormat::Webp));
        assert!(is_animated(&webp, ImageFormat::Webp));
        webp[20] = 0;
        assert!(!is_animated(&webp, ImageFormat::Webp));
        assert_eq!(
            image_format(b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1"),
            Some(ImageFormat::Avif)
        );
        assert_eq!(image_format(b"BM\x00\x00 a bitmap is not taken"), None);
        assert_eq!(image_format(b"plain text, not an image"), None);
    }

    #[test]
    fn data_uris_decode_and_name_their_type() {
        let d = data_uri("data:image/PNG;base64,aGVsbG8=").unwrap();
        assert_eq!(
            (d.mime.as_str(), d.bytes.as_slice()),
            ("image/png", &b"hello"[..])
        );
        assert_eq!(data_uri("data:image/png,aGVsbG8="), None, "not base64");
        assert_eq!(data_uri("aGVsbG8="), None);
        assert_eq!(data_uri("data:image/png;base64,"), None);
        assert_eq!(data_uri("data:image/png;base64,a$b="), None);
    }
}
