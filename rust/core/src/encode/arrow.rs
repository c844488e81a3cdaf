//! Arrow string columns (`string`, `large_string`, `binary`, `large_binary`) read from
//! their buffers, in place: an item's bytes lie between two offsets in the data buffer,
//! and its validity bit says whether it is missing. Items compare bytewise, which for
//! UTF-8 is code point order (Python's order of `str`).

use rayon::prelude::*;

use super::blocks::{encode_block, finish_blocks, Codes, PARALLEL_MIN};
use super::key::Bytes;
use crate::error::Error;
use crate::pool;

/// An Arrow validity bitmap: item `i` is present when bit `offset + i` is set (bits are
/// numbered from the least significant of each byte).
#[derive(Debug, Clone, Copy)]
pub struct Bitmap<'a> {
    pub bits: &'a [u8],
    pub offset: usize,
}

impl Bitmap<'_> {
    /// Whether item `i` is present; None past the bitmap's end.
    #[inline]
    fn present(&self, i: usize) -> Option<bool> {
        let bit = self.offset.checked_add(i)?;
        self.bits.get(bit / 8).map(|b| (b >> (bit % 8)) & 1 == 1)
    }
}

/// An Arrow offset (`i32` for `string`, `i64` for `large_string`).
pub trait Offset: Copy + Send + Sync {
    /// The offset as a position in the data buffer; None if negative.
    fn position(self) -> Option<usize>;
}

impl Offset for i32 {
    #[inline(always)]
    fn position(self) -> Option<usize> {
        usize::try_from(self).ok()
    }
}

impl Offset for i64 {
    #[inline(always)]
    fn position(self) -> Option<usize> {
        usize::try_from(self).ok()
    }
}

/// One chunk of an Arrow string array, as its buffers: the `len + 1` offsets from its
/// first item (a slice's offsets start past the buffer's start), the whole data buffer,
/// and the validity bitmap when the chunk has nulls.
#[derive(Debug, Clone, Copy)]
pub struct StrChunk<'a, O> {
    pub offsets: &'a [O],
    pub data: &'a [u8],
    pub valid: Option<Bitmap<'a>>,
}

impl<'a, O: Offset> StrChunk<'a, O> {
    fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Item `i`: Some(None) when missing, Some(Some(item)) when present, None when the
    /// buffers do not hold it (an offset out of the data, decreasing, or no validity bit).
    #[inline]
    fn item(&self, i: usize) -> Option<Option<Bytes<'a>>> {
        if let Some(valid) = self.valid {
            if !valid.present(i)? {
                return Some(None);
            }
        }
        let start = self.offsets[i].position()?;
        let end = self.offsets[i + 1].position()?;
        let bytes = self.data.get(start..end)?;
        Some(Some(Bytes::new(bytes, self.data.get(start..start + 16))))
    }
}

/// Codes (in bytewise sorted order, missing as [`MISSING`](crate::encode::MISSING)) of the items of an
/// Arrow string array made of `chunks`, hashed in parallel blocks. Buffers that do not
/// hold their items give [`Error::BadArrowBuffers`].
pub fn encode_arrow<O: Offset>(chunks: &[StrChunk<'_, O>]) -> Result<Codes, Error> {
    let n: usize = chunks.iter().map(StrChunk::len).sum();
    let threads = if n >= PARALLEL_MIN {
        pool::threads()
    } else {
        1
    };
    let target = n.div_ceil(threads).max(1);
    // Blocks of at most `target` items, none spanning two chunks: (chunk, first item, end).
    let mut spans = Vec::new();
    for (c, chunk) in chunks.iter().enumerate() {
        let mut start = 0;
        while start < chunk.len() {
            let end = chunk.len().min(start + target);
            spans.push((c, start, end));
            start = end;
        }
    }
    let lengths: Vec<usize> = spans.iter().map(|&(_, s, e)| e - s).collect();
    let mut codes = crate::pages::zeroed::<u32>(n);
    let mut parts = Vec::with_capacity(spans.len());
    let mut rest = codes.as_mut_slice();
    let mut offset = 0;
    for (&span, &len) in spans.iter().zip(&lengths) {
        let (part, tail) = rest.split_at_mut(len);
        parts.push((span, offset, part));
        rest = tail;
        offset += len;
    }
    let run = |((c, start, end), offset, out): ((usize, usize, usize), usize, &mut [u32])| {
        let chunk = &chunks[c];
        encode_block(out, offset, (start..end).map(|i| chunk.item(i)))
    };
    let blocks: Result<Vec<_>, Error> = if parts.len() > 1 && threads > 1 {
        pool::run(|| parts.into_par_iter().map(run).collect())
    } else {
        parts.into_iter().map(run).collect()
    };
    let blocks: Option<Vec<_>> = blocks?.into_iter().collect();
    let blocks = blocks.ok_or(Error::BadArrowBuffers)?;
    finish_blocks(codes, &lengths, blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{encode, MISSING};

    /// The buffers of `items` as Arrow lays them out (nulls take no data).
    fn buffers(items: &[Option<&str>]) -> (Vec<i32>, Vec<u8>, Vec<u8>) {
        let mut offsets = vec![0i32];
        let mut data = Vec::new();
        let mut bits = vec![0u8; items.len().div_ceil(8)];
        for (i, item) in items.iter().enumerate() {
            if let Some(s) = item {
                data.extend_from_slice(s.as_bytes());
                bits[i / 8] |= 1 << (i % 8);
            }
            offsets.push(data.len() as i32);
        }
        (offsets, data, bits)
    }

    #[test]
    fn codes_of_chunks_and_slices_follow_utf8_order() {
        let items = [
            Some("b"),
            None,
            Some("\u{e9}"),
            Some("a"),
            Some("z"),
            Some(""),
            Some("b"),
        ];
        let (offsets, data, bits) = buffers(&items);
        // Two chunks: items 0..3 and a slice from item 3 (its validity bits start at 3).
        let first = StrChunk {
            offsets: &offsets[..4],
            data: &data,
            valid: Some(Bitmap {
                bits: &bits,
                offset: 0,
            }),
        };
        let second = StrChunk {
            offsets: &offsets[3..],
            data: &data,
            valid: Some(Bitmap {
                bits: &bits,
                offset: 3,
            }),
        };
        let got = encode_arrow(&[first, second]).unwrap();
        let want = encode(items.iter().map(|s| s.map(str::as_bytes))).unwrap();
        assert_eq!(got, want);
        // "" < "a" < "b" < "z" < "é" (U+00E9 is two bytes, 0xC3 0xA9).
        assert_eq!(got.codes, vec![2, MISSING, 4, 1, 3, 0, 2]);
        assert_eq!(got.missing, 1);
    }

    #[test]
    fn parallel_blocks_agree_with_one_pass() {
        let words: Vec<String> = (0..200_000)
            .map(|i| format!("w{}", (i * 7919) % 1013))
            .collect();
        let items: Vec<Option<&str>> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (i % 97 != 0).then_some(w.as_str()))
            .collect();
        let (offsets, data, bits) = buffers(&items);
        let wide: Vec<i64> = offsets.iter().map(|&o| i64::from(o)).collect();
        let valid = Some(Bitmap {
            bits: &bits,
            offset: 0,
        });
        let chunk = StrChunk {
            offsets: &wide,
            data: &data,
            valid,
        };
        let want = encode(items.iter().map(|s| s.map(str::as_bytes))).unwrap();
        // Split in blocks across the pool's threads, and in two chunks at an odd place.
        assert_eq!(encode_arrow(&[chunk]).unwrap(), want);
        let (head, tail) = (&wide[..70_001], &wide[70_000..]);
        let halves = [
            StrChunk {
                offsets: head,
                ..chunk
            },
            StrChunk {
                offsets: tail,
                valid: Some(Bitmap {
                    bits: &bits,
                    offset: 70_000,
                }),
                ..chunk
            },
        ];
        assert_eq!(encode_arrow(&halves).unwrap(), want);
    }

    #[test]
    fn buffers_that_do_not_hold_their_items_are_refused() {
        let data = b"abcdef";
        for offsets in [&[0, 2, 9][..], &[0, 4, 2], &[-1, 2, 3]] {
            let chunk = StrChunk {
                offsets,
                data,
                valid: None,
            };
            assert_eq!(encode_arrow(&[chunk]), Err(Error::BadArrowBuffers));
        }
        let short = StrChunk {
            offsets: &[0i32, 1, 2][..],
            data,
            valid: Some(Bitmap {
                bits: &[0xff],
                offset: 7,
            }),
        };
        assert_eq!(encode_arrow(&[short]), Err(Error::BadArrowBuffers));
        let empty: [StrChunk<'_, i32>; 0] = [];
        assert_eq!(encode_arrow(&empty).unwrap().codes, Vec::<u32>::new());
    }
}
