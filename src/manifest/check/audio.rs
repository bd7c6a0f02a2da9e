//! How long a sound file plays, read from its bytes as Discord measures it: an MP3 by
//! walking every MPEG audio frame header and adding up their samples (variable bitrates need
//! no Xing header), an Ogg stream by its first logical stream's last granule position over
//! the sample rate its Vorbis or Opus header names. Written from the formats' specifications
//! (ISO/IEC 11172-3 and 13818-3 frame headers, RFC 3533 pages, Vorbis I and RFC 7845 headers).

/// The sound's MIME type and length in seconds; `None` when it is neither a readable MP3
/// nor a readable Ogg Vorbis or Opus stream.
pub(crate) fn audio(bytes: &[u8]) -> Option<(&'static str, f64)> {
    if bytes.starts_with(b"OggS") {
        ogg_seconds(bytes).map(|s| ("audio/ogg", s))
    } else {
        mp3_seconds(bytes).map(|s| ("audio/mpeg", s))
    }
}

fn ogg_seconds(b: &[u8]) -> Option<f64> {
    let (mut pos, mut serial, mut rate, mut pre_skip) = (0usize, None, 0u32, 0u64);
    let mut last = None;
    while pos < b.len() {
        let head = b.get(pos..pos + 27)?;
        if &head[..4] != b"OggS" || head[4] != 0 {
            return None;
        }
        let granule = i64::from_le_bytes(head[6..14].try_into().ok()?);
        let page_serial = u32::from_le_bytes(head[14..18].try_into().ok()?);
        let segments = usize::from(head[26]);
        let table = b.get(pos + 27..pos + 27 + segments)?;
        let start = pos + 27 + segments;
        let len: usize = table.iter().map(|&n| usize::from(n)).sum();
        let body = b.get(start..start + len)?;
        if serial.is_none() {
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
        // A granule of -1: no packet ends on this page.
        if serial == Some(page_serial) && granule >= 0 {
            last = Some(granule as u64);
        }
        pos = start + len;
    }
    (rate > 0).then_some(())?;
    Some(last?.saturating_sub(pre_skip) as f64 / f64::from(rate))
}

fn mp3_seconds(b: &[u8]) -> Option<f64> {
    let mut pos = 0usize;
    if b.starts_with(b"ID3") {
        let h = b.get(..10)?;
        let size = h[6..10]
            .iter()
            .fold(0usize, |acc, &x| (acc << 7) | usize::from(x & 0x7f));
        pos = 10 + size + if h[5] & 0x10 != 0 { 10 } else { 0 };
    }
    let (mut seconds, mut frames) = (0.0, 0u32);
    while let Some(h) = b.get(pos..pos + 4) {
        // An ID3v1 tag closes the file.
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

/// One frame header: its length in bytes and the seconds it plays.
fn mp3_frame(h: u32) -> Option<(usize, f64)> {
    if h & 0xFFE0_0000 != 0xFFE0_0000 {
        return None;
    }
    // Version: 0 MPEG 2.5, 2 MPEG 2, 3 MPEG 1 (1 reserved). Layer: 1 III, 2 II, 3 I.
    let version = (h >> 19) & 3;
    let layer = (h >> 17) & 3;
    let index = ((h >> 12) & 0xF) as usize;
    let rate_index = ((h >> 10) & 3) as usize;
    let padding = ((h >> 9) & 1) as usize;
    // Free-format (0) and bad (15) bitrates cannot be walked.
    if version == 1 || layer == 0 || index == 0 || index == 15 || rate_index == 3 {
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
    }[index];
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
mod tests {
    use super::*;

    /// `n` MPEG-1 layer III frames at 128 kbit/s, 44.1 kHz: 417 bytes, 1152 samples each.
    fn mp3(n: usize) -> Vec<u8> {
        let mut frame = vec![0u8; 417];
        frame[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
        frame.repeat(n)
    }

    fn ogg_page(granule: i64, body: &[u8]) -> Vec<u8> {
        let mut p = b"OggS\0\0".to_vec();
        p.extend(granule.to_le_bytes());
        p.extend(7u32.to_le_bytes());
        p.extend([0u8; 8]);
        p.push(1);
        p.push(body.len() as u8);
        p.extend(body);
        p
    }

    #[test]
    fn an_mp3_lasts_as_long_as_its_frames() {
        let (mime, s) = audio(&mp3(100)).unwrap();
        assert_eq!(mime, "audio/mpeg");
        assert!((s - 100.0 * 1152.0 / 44100.0).abs() < 1e-9, "{s}");
        assert!(audio(b"ID3 not really").is_none());
        assert!(audio(b"hello").is_none());
    }

    #[test]
    fn an_ogg_lasts_until_its_last_granule() {
        let mut id = b"\x01vorbis".to_vec();
        id.extend(0u32.to_le_bytes());
        id.push(2);
        id.extend(48_000u32.to_le_bytes());
        id.extend([0u8; 14]);
        let mut b = ogg_page(0, &id);
        b.extend(ogg_page(-1, &[0; 100]));
        b.extend(ogg_page(144_000, &[1; 100]));
        let (mime, s) = audio(&b).unwrap();
        assert_eq!(mime, "audio/ogg");
        assert!((s - 3.0).abs() < 1e-9, "{s}");
    }
}
