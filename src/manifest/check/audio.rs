//! How long a sound file plays, read from its bytes without decoding audio. Symphonia's
//! demuxers do the reading (MPEG audio frames, Ogg pages with Vorbis and Opus headers, an
//! ID3v2 tag before an MP3); only the stream's own headers and timestamps are read:
//!
//! - An MP3 lasts as long as all its frames: the demuxer walks every frame header, so a
//!   variable bitrate needs no Xing header (without one, symphonia's own track length is an
//!   estimate from the first frames' bitrate). A LAME tag's encoder delay and padding are
//!   counted: symphonia 0.6 reports them in a packet's `trim_start` and `trim_end` without
//!   taking them off its `dur`, which makes this the longer reading of such a file (by
//!   1105 + 227 samples, 30 ms, in a 3 s file from lame at 44.1 kHz), the safe side of
//!   Discord's limit.
//! - An Ogg stream lasts until its first logical stream's last granule position, the
//!   packets' timestamps as the demuxer derives them from the pages; an Opus stream less its
//!   pre-skip (RFC 7845, 4.3), which symphonia leaves in the timestamps for a decoder to drop.

use std::io::Cursor;

use symphonia_bundle_mp3::MpaReader;
use symphonia_core::codecs::CodecParameters;
use symphonia_core::codecs::audio::well_known::{
    CODEC_ID_MP1, CODEC_ID_MP2, CODEC_ID_MP3, CODEC_ID_OPUS, CODEC_ID_VORBIS,
};
use symphonia_core::formats::probe::{Hint, Probe, ProbeOptions};
use symphonia_core::formats::{FormatOptions, TrackType};
use symphonia_core::io::{MediaSourceStream, MediaSourceStreamOptions};
use symphonia_core::meta::MetadataOptions;
use symphonia_format_ogg::OggReader;
use symphonia_metadata::id3v2::Id3v2Reader;

/// The sound's MIME type and length in seconds; `None` when it is neither a readable MP3
/// nor a readable Ogg Vorbis or Opus stream.
pub(crate) fn audio(bytes: &[u8]) -> Option<(&'static str, f64)> {
    // The file must begin with its format: a frame, a page or an ID3v2 tag (the probe's
    // markers are two bytes). Symphonia would otherwise look for one through the first MB,
    // and take "notes.txt" with an MP3 pasted at its end, which the emulator refuses.
    let mut probe = Probe::new_with_options(&ProbeOptions {
        max_probe_depth: 2,
        ..ProbeOptions::default()
    });
    probe.register_format::<MpaReader<'_>>();
    probe.register_format::<OggReader<'_>>();
    probe.register_metadata::<Id3v2Reader<'_>>();
    let source = MediaSourceStream::new(
        Box::new(Cursor::new(bytes)),
        MediaSourceStreamOptions::default(),
    );
    let mut reader = probe
        .probe(
            &Hint::new(),
            source,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .ok()?;
    let track = reader.first_track(TrackType::Audio)?;
    let Some(CodecParameters::Audio(params)) = &track.codec_params else {
        return None;
    };
    let rate = params.sample_rate.filter(|&r| r > 0)?;
    let (mime, pre_skip) = match params.codec {
        CODEC_ID_MP1 | CODEC_ID_MP2 | CODEC_ID_MP3 => ("audio/mpeg", 0),
        CODEC_ID_VORBIS => ("audio/ogg", 0),
        CODEC_ID_OPUS => ("audio/ogg", u64::from(track.delay.unwrap_or(0))),
        _ => return None,
    };
    let id = track.id;
    let mut samples = 0u64;
    // A page or frame the demuxer cannot read makes the file unreadable, as a player would
    // find it; an MP3 simply ends where no further whole frame is.
    while let Some(packet) = reader.next_packet().ok()? {
        if packet.track_id == id {
            samples = samples.saturating_add(packet.dur.get());
        }
    }
    (samples > 0).then(|| {
        (
            mime,
            samples.saturating_sub(pre_skip) as f64 / f64::from(rate),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Real files, made by lame, oggenc and opusenc (tests/data/README.md says how).
    const VBR_NO_XING: &[u8] = include_bytes!("../../../tests/data/sounds/vbr-no-xing.mp3");
    const VBR_LAME_TAG: &[u8] = include_bytes!("../../../tests/data/sounds/vbr-lame-tag.mp3");
    const ID3V2: &[u8] = include_bytes!("../../../tests/data/sounds/id3v2.mp3");
    const VORBIS_1S: &[u8] = include_bytes!("../../../tests/data/sounds/vorbis-1s.ogg");
    const VORBIS_6S: &[u8] = include_bytes!("../../../tests/data/sounds/vorbis-6s.ogg");
    const OPUS_1S: &[u8] = include_bytes!("../../../tests/data/sounds/opus-1s.ogg");

    /// `n` MPEG-1 layer III frames at 128 kbit/s, 44.1 kHz: 417 bytes, 1152 samples each.
    fn mp3(n: usize) -> Vec<u8> {
        let mut frame = vec![0u8; 417];
        frame[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
        frame.repeat(n)
    }

    fn assert_seconds(bytes: &[u8], mime: &str, seconds: f64) {
        let (m, s) = audio(bytes).expect("a readable sound");
        assert_eq!(m, mime);
        assert!((s - seconds).abs() < 1e-9, "{s} seconds, not {seconds}");
    }

    #[test]
    fn an_mp3_lasts_as_long_as_its_frames() {
        let (mime, s) = audio(&mp3(100)).unwrap();
        assert_eq!(mime, "audio/mpeg");
        assert!((s - 100.0 * 1152.0 / 44100.0).abs() < 1e-9, "{s}");
        assert!(audio(b"ID3 not really").is_none());
        assert!(audio(b"hello").is_none());
    }

    /// The frames' bitrates differ (32 to 192 kbit/s) and no Xing header counts them, so
    /// only walking every frame gets the length: 40 frames of 1152 samples at 44.1 kHz
    /// (symphonia's own track length would be an estimate from the first frames' bitrate).
    #[test]
    fn a_variable_bitrate_mp3_without_a_xing_header_is_walked_frame_by_frame() {
        assert!(!VBR_NO_XING.windows(4).any(|w| w == b"Xing" || w == b"Info"));
        assert_seconds(VBR_NO_XING, "audio/mpeg", 40.0 * 1152.0 / 44100.0);
    }

    /// The same sound with lame's Xing and LAME tag: the tag's frame holds no audio and is
    /// not counted; the encoder delay and padding the tag names are (module comment).
    #[test]
    fn an_mp3_with_a_lame_tag_counts_every_audio_frame() {
        assert!(VBR_LAME_TAG.windows(4).any(|w| w == b"Xing"));
        assert_seconds(VBR_LAME_TAG, "audio/mpeg", 40.0 * 1152.0 / 44100.0);
    }

    #[test]
    fn an_id3v2_tag_before_the_frames_is_skipped() {
        assert!(ID3V2.starts_with(b"ID3"));
        assert_seconds(ID3V2, "audio/mpeg", 40.0 * 1152.0 / 44100.0);
    }

    /// oggenc's 1 s and 6 s at 22.05 kHz: the last granule positions are 22050 and 132300.
    #[test]
    fn an_ogg_lasts_until_its_last_granule() {
        assert_seconds(VORBIS_1S, "audio/ogg", 1.0);
        assert_seconds(VORBIS_6S, "audio/ogg", 6.0);
    }

    /// opusenc's 1 s: the last granule position is 48000 + 312, the pre-skip its OpusHead
    /// names, which is not played.
    #[test]
    fn an_opus_stream_lasts_until_its_last_granule_less_its_pre_skip() {
        let head = OPUS_1S
            .windows(8)
            .position(|w| w == b"OpusHead")
            .expect("an OpusHead");
        let pre_skip = u16::from_le_bytes([OPUS_1S[head + 10], OPUS_1S[head + 11]]);
        assert_eq!(pre_skip, 312);
        assert_seconds(OPUS_1S, "audio/ogg", 1.0);
    }

    /// An Ogg stream cut short is unreadable (its last page is incomplete); an MP3 cut short
    /// ends at its last whole frame. Neither panics, and no cut reads longer than the file.
    #[test]
    fn truncated_files_read_shorter_or_not_at_all() {
        for whole in [VBR_NO_XING, VBR_LAME_TAG, ID3V2, VORBIS_1S, OPUS_1S] {
            let full = audio(whole).unwrap().1;
            for cut in (0..whole.len()).step_by(97) {
                if let Some((_, s)) = audio(&whole[..cut]) {
                    assert!(
                        s <= full,
                        "{cut} bytes read as {s} s, the whole file {full} s"
                    );
                }
            }
        }
        assert!(audio(&OPUS_1S[..OPUS_1S.len() - 10]).is_none());
        let cut = &VBR_NO_XING[..VBR_NO_XING.len() / 2];
        let s = audio(cut).unwrap().1;
        assert!(s > 0.0 && s < 40.0 * 1152.0 / 44100.0, "{s}");
    }

    #[test]
    fn what_is_not_a_sound_is_unreadable() {
        assert!(audio(b"").is_none());
        assert!(audio(b"OggS").is_none());
        assert!(audio(&[0xFF, 0xFB, 0x90, 0x00]).is_none());
        assert!(audio(&[0u8; 4096]).is_none());
        assert!(audio(include_bytes!("audio.rs")).is_none());
        let mut pasted = b"notes\n".to_vec();
        pasted.extend(VBR_NO_XING);
        assert!(audio(&pasted).is_none());
        let mut pasted = b"notes\n".to_vec();
        pasted.extend(VORBIS_1S);
        assert!(audio(&pasted).is_none());
    }

    proptest! {
        // Bounded: a few hundred inputs of up to 8 KiB run in well under a second.
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..8192)) {
            let _ = audio(&bytes);
        }

        /// Real files with bytes overwritten and cut: what a damaged upload looks like.
        #[test]
        fn damaged_files_never_panic(
            which in 0usize..5,
            hits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..24),
            keep in any::<prop::sample::Index>(),
        ) {
            let mut bytes = [VBR_NO_XING, VBR_LAME_TAG, ID3V2, VORBIS_1S, OPUS_1S][which].to_vec();
            for (at, byte) in hits {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
            let keep = keep.index(bytes.len() + 1);
            bytes.truncate(keep);
            if let Some((_, s)) = audio(&bytes) {
                prop_assert!(s.is_finite() && s >= 0.0);
            }
        }
    }
}
