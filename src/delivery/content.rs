//! The content hash: what a message shows, as one number.
//!
//! FNV-1a over the message's parts (its text, then its buttons in a
//! platform's own serialization), each part after the first preceded by a
//! 0xff byte, which no UTF-8 text contains. Unlike std's hasher it is the
//! same on every build and every run, so a hash saved before a restart
//! still says whether a render would change anything. Telegram's hashes
//! saved by earlier versions are of this very form (text, 0xff, keyboard
//! JSON), so they stay valid.

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// The hash of a message made of `parts` (see the module docs).
pub fn content_hash<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> i64 {
    let mut h = OFFSET;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(PRIME);
        }
    };
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            eat(&[0xff]);
        }
        eat(part);
    }
    h as i64
}

#[cfg(test)]
mod tests {
    use super::content_hash;

    #[test]
    fn is_fnv_1a_and_stable_across_builds() {
        // FNV-1a's published value for "a".
        assert_eq!(
            content_hash([b"a".as_slice()]) as u64,
            0xaf63_dc4c_8601_ec8c
        );
        assert_eq!(content_hash([].into_iter()) as u64, 0xcbf2_9ce4_8422_2325);
    }

    #[test]
    fn parts_are_kept_apart() {
        let ab_c = content_hash([b"ab".as_slice(), b"c".as_slice()]);
        let a_bc = content_hash([b"a".as_slice(), b"bc".as_slice()]);
        assert_ne!(ab_c, a_bc);
        assert_ne!(content_hash([b"abc".as_slice()]), ab_c);
        // A text without buttons hashes like the text and an empty part.
        assert_eq!(
            content_hash([b"t".as_slice(), b"".as_slice()]),
            content_hash([b"t".as_slice(), [].as_slice()])
        );
    }
}
