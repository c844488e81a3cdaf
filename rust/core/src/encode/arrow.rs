//! Arrow string columns read from their buffers, in place. In `string`, `large_string`,
//! `binary` and `large_binary` an item's bytes lie between two offsets in the data
//! buffer; in `string_view` and `binary_view` (polars' own layout) each item has a
//! 16-byte view that holds a short item itself, or a long item's buffer and offset.
//! A validity bit says whether an item is missing. Items compare bytewise, which for
//! UTF-8 is code point order (Python's order of `str`).

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

use rayon::prelude::*;

use super::blocks::{encode_block, finish_blocks, Codes, CODES, PARALLEL_MIN};
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

/// One chunk of an Arrow `string_view` or `binary_view` array: the 16-byte views of its
/// items from its first item, its data buffers, and its validity bitmap when it has nulls.
#[derive(Debug, Clone, Copy)]
pub struct ViewChunk<'a> {
    pub views: &'a [[u8; 16]],
    pub buffers: &'a [&'a [u8]],
    pub valid: Option<Bitmap<'a>>,
}

/// A chunk of an Arrow string column, read item by item.
trait Chunk<'a>: Sync {
    /// An item as a hash key, ordered as the item's bytes.
    type Key: Hash + Eq + Ord + Copy + Send + Sync;

    /// The number of items.
    fn len(&self) -> usize;

    /// Item `i` (below `len`): Some(None) when missing, Some(Some(item)) when present,
    /// None when the buffers do not hold it.
    fn item(&self, i: usize) -> Option<Option<Self::Key>>;
}

/// Whether item `i` of a chunk with validity bits `valid` is present; None past the bits.
#[inline(always)]
fn present(valid: Option<Bitmap<'_>>, i: usize) -> Option<bool> {
    valid.map_or(Some(true), |v| v.present(i))
}

impl<'a, O: Offset> Chunk<'a> for StrChunk<'a, O> {
    type Key = Bytes<'a>;

    fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// None when an offset is out of the data, decreasing, or there is no validity bit.
    #[inline]
    fn item(&self, i: usize) -> Option<Option<Bytes<'a>>> {
        if !present(self.valid, i)? {
            return Some(None);
        }
        let start = self.offsets[i].position()?;
        let end = self.offsets[i + 1].position()?;
        let bytes = self.data.get(start..end)?;
        Some(Some(Bytes::new(bytes, self.data.get(start..start + 16))))
    }
}

/// Items of at most this many bytes are held in their views.
const INLINE: usize = 12;

/// `KEEP[len]` keeps the length and the first `len` bytes of a view (a view's unused
/// bytes are zero by Arrow's rule; the mask makes them so whoever wrote the view).
const KEEP: [[u8; 16]; INLINE + 1] = {
    let mut keep = [[0u8; 16]; INLINE + 1];
    let mut len = 0;
    while len <= INLINE {
        let mut b = 0;
        while b < 4 + len {
            keep[len][b] = 0xff;
            b += 1;
        }
        len += 1;
    }
    keep
};

/// An item of a view array as a key: one held in its view as the view itself (its length
/// and its bytes), compared and hashed as one number; a longer one as its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ViewKey<'a> {
    Inline(u128),
    Data(Bytes<'a>),
}

impl<'a> ViewKey<'a> {
    /// The key as [`Bytes`], which orders items.
    fn bytes(self) -> Bytes<'a> {
        match self {
            ViewKey::Inline(view) => {
                let view = view.to_ne_bytes();
                let len = u32::from_ne_bytes([view[0], view[1], view[2], view[3]]) as usize;
                let mut bytes = [0u8; 16];
                bytes[..INLINE].copy_from_slice(&view[4..]);
                Bytes::inline(bytes, len)
            }
            ViewKey::Data(bytes) => bytes,
        }
    }
}

impl Hash for ViewKey<'_> {
    /// No tag: the two kinds never hold items of the same length.
    #[inline(always)]
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            ViewKey::Inline(view) => state.write_u128(*view),
            ViewKey::Data(bytes) => bytes.hash(state),
        }
    }
}

impl Ord for ViewKey<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.bytes().cmp(&other.bytes())
    }
}

impl PartialOrd for ViewKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<'a> Chunk<'a> for ViewChunk<'a> {
    type Key = ViewKey<'a>;

    fn len(&self) -> usize {
        self.views.len()
    }

    /// None when a long item's buffer or bytes are not there, or there is no validity bit.
    #[inline]
    fn item(&self, i: usize) -> Option<Option<ViewKey<'a>>> {
        if !present(self.valid, i)? {
            return Some(None);
        }
        let view = &self.views[i];
        let word =
            |at: usize| u32::from_ne_bytes([view[at], view[at + 1], view[at + 2], view[at + 3]]);
        let len = word(0) as usize;
        if let Some(keep) = KEEP.get(len) {
            let key = u128::from_ne_bytes(*view) & u128::from_ne_bytes(*keep);
            return Some(Some(ViewKey::Inline(key)));
        }
        // The length, the first four bytes, the buffer's index and the item's offset in it.
        let buffer = self.buffers.get(word(8) as usize)?;
        let start = word(12) as usize;
        let bytes = buffer.get(start..start.checked_add(len)?)?;
        Some(Some(ViewKey::Data(Bytes::new(
            bytes,
            buffer.get(start..start + 16),
        ))))
    }
}

/// Codes (in bytewise sorted order, missing as [`MISSING`](crate::encode::MISSING)) of the items of an
/// Arrow string array made of `chunks`, hashed in parallel blocks. Buffers that do not
/// hold their items give [`Error::BadArrowBuffers`].
pub fn encode_arrow<O: Offset>(chunks: &[StrChunk<'_, O>]) -> Result<Codes, Error> {
    encode_chunks(chunks)
}

/// [`encode_arrow`] for an Arrow `string_view` or `binary_view` array.
pub fn encode_views(chunks: &[ViewChunk<'_>]) -> Result<Codes, Error> {
    encode_chunks(chunks)
}

fn encode_chunks<'a, C: Chunk<'a>>(chunks: &[C]) -> Result<Codes, Error> {
    let n: usize = chunks.iter().map(Chunk::len).sum();
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
    let mut codes = crate::pages::zeroed::<u32>(n, CODES)?;
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

    /// The views, buffers and validity bits of `items` as a `string_view` array lays them
    /// out: items longer than 12 bytes go to the data buffers, a new one every `per` items.
    fn views(items: &[Option<&str>], per: usize) -> (Vec<[u8; 16]>, Vec<Vec<u8>>, Vec<u8>) {
        let mut views = Vec::new();
        let mut buffers: Vec<Vec<u8>> = Vec::new();
        let mut bits = vec![0u8; items.len().div_ceil(8)];
        let mut long = 0;
        for (i, item) in items.iter().enumerate() {
            let mut view = [0u8; 16];
            if let Some(s) = item {
                bits[i / 8] |= 1 << (i % 8);
                let b = s.as_bytes();
                view[..4].copy_from_slice(&(b.len() as u32).to_ne_bytes());
                if b.len() <= INLINE {
                    view[4..4 + b.len()].copy_from_slice(b);
                } else {
                    if long % per == 0 {
                        buffers.push(Vec::new());
                    }
                    long += 1;
                    let index = (buffers.len() - 1) as u32;
                    let buffer = buffers.last_mut().unwrap();
                    view[4..8].copy_from_slice(&b[..4]);
                    view[8..12].copy_from_slice(&index.to_ne_bytes());
                    view[12..].copy_from_slice(&(buffer.len() as u32).to_ne_bytes());
                    buffer.extend_from_slice(b);
                }
            }
            views.push(view);
        }
        (views, buffers, bits)
    }

    #[test]
    fn views_agree_with_their_items_short_and_long() {
        // Lengths around the inline limit (12) and the packed limit (15), nulls, and
        // long items that share their first four bytes.
        let words: Vec<String> = (0..200_000)
            .map(|i| {
                let v = (i * 7919) % 1013;
                "abcdefghijklmnopqrst"[..v % 21].to_string() + &v.to_string()
            })
            .collect();
        let items: Vec<Option<&str>> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (i % 89 != 0).then_some(w.as_str()))
            .collect();
        let want = encode(items.iter().map(|s| s.map(str::as_bytes))).unwrap();
        let (views, buffers, bits) = views(&items, 5_000);
        let buffers: Vec<&[u8]> = buffers.iter().map(Vec::as_slice).collect();
        let chunk = ViewChunk {
            views: &views,
            buffers: &buffers,
            valid: Some(Bitmap {
                bits: &bits,
                offset: 0,
            }),
        };
        assert_eq!(encode_views(&[chunk]).unwrap(), want);
        // Two chunks, the second a slice whose views and bits start at item 70,001.
        let halves = [
            ViewChunk {
                views: &views[..70_001],
                ..chunk
            },
            ViewChunk {
                views: &views[70_001..],
                valid: Some(Bitmap {
                    bits: &bits,
                    offset: 70_001,
                }),
                ..chunk
            },
        ];
        assert_eq!(encode_views(&halves).unwrap(), want);
        let without_nulls = ViewChunk {
            valid: None,
            ..chunk
        };
        let present = encode_views(&[without_nulls]).unwrap();
        assert_eq!(present.missing, 0);
        assert_eq!(
            present.first.len(),
            want.first.len() + usize::from(want.missing > 0)
        );
    }

    #[test]
    fn views_that_point_outside_their_buffers_are_refused() {
        let (mut views, buffers, _) = views(&[Some("a long label, past twelve bytes")], 1);
        let data: Vec<&[u8]> = buffers.iter().map(Vec::as_slice).collect();
        let run = |views: &[[u8; 16]]| {
            encode_views(&[ViewChunk {
                views,
                buffers: &data,
                valid: None,
            }])
        };
        assert_eq!(run(&views).unwrap().codes, vec![0]);
        views[0][8] = 1; // no second buffer
        assert_eq!(run(&views), Err(Error::BadArrowBuffers));
        views[0][8] = 0;
        views[0][12] = 2; // the item's end is past the buffer's
        assert_eq!(run(&views), Err(Error::BadArrowBuffers));
        views[0][12..].copy_from_slice(&u32::MAX.to_ne_bytes());
        assert_eq!(run(&views), Err(Error::BadArrowBuffers));
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
