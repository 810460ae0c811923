//! The fast PNG deflate (`--png-compression fast`): one dynamic Huffman block of literals
//! for each piece, with the code made from that piece's byte counts, and no search for
//! matches. Filtered noise has few long matches (a 16-bit level's low byte is close to
//! random), so this is several times as fast as zlib's level 1 (counting, one table look-up
//! and a few shifts a byte), for files about its size (smaller on detailed images, larger on
//! smooth ones, where zlib finds matches). Each piece ends with a sync
//! flush (an empty stored block), byte-aligned and not final, so pieces join into one stream
//! as [`super::png`] joins zlib's (RFC 1951).

/// Literal codes: the 256 byte values and the end of block.
const LITERALS: usize = 257;
const END_OF_BLOCK: usize = 256;
/// The longest code deflate allows for literals, and for the code-length code.
const MAX_LITERAL_BITS: usize = 15;
const MAX_LENGTH_BITS: usize = 7;
/// The order in which a dynamic block lists the code-length code's lengths.
const LENGTH_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// `data` as a non-final deflate block of literals followed by a sync flush.
pub(crate) fn deflate_literals(data: &[u8]) -> Vec<u8> {
    let mut counts = [0u32; LITERALS];
    count_bytes(data, &mut counts);
    counts[END_OF_BLOCK] = 1;
    let lengths = code_lengths(&counts, MAX_LITERAL_BITS);
    let codes = canonical_codes(&lengths);
    // At most 15 bits a byte, and the header (under 300 bytes).
    let mut out = Bits::with_capacity(data.len() * 15 / 8 + 512);
    out.put(0b100, 3); // not final; type 2 (dynamic codes)
    write_code_lengths(&mut out, &lengths);
    // Each byte's code and length in one word: the code in the low 16 bits.
    let table: Vec<u32> = (0..256)
        .map(|b| codes[b] as u32 | (lengths[b] as u32) << 16)
        .collect();
    out.put_bytes(data, &table);
    out.put(codes[END_OF_BLOCK] as u64, lengths[END_OF_BLOCK] as u32);
    // Sync flush: an empty stored block, then its length fields on the byte boundary.
    out.put(0, 3);
    out.align();
    out.out.extend_from_slice(&[0x00, 0x00, 0xff, 0xff]);
    out.out
}

/// Adds the number of times each byte value occurs in `data` to `counts` (four tables, so
/// that runs of one value do not wait on one counter).
fn count_bytes(data: &[u8], counts: &mut [u32; LITERALS]) {
    let mut four = [[0u32; 256]; 4];
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        four[0][c[0] as usize] += 1;
        four[1][c[1] as usize] += 1;
        four[2][c[2] as usize] += 1;
        four[3][c[3] as usize] += 1;
    }
    for &b in chunks.remainder() {
        four[0][b as usize] += 1;
    }
    for (b, count) in counts.iter_mut().take(256).enumerate() {
        *count += four[0][b] + four[1][b] + four[2][b] + four[3][b];
    }
}

/// Huffman code lengths for symbols occurring `counts` times, none longer than `limit`:
/// a complete code (at least two symbols get a code, so a lone symbol gets one bit).
fn code_lengths(counts: &[u32], limit: usize) -> Vec<u8> {
    let mut lengths = vec![0u8; counts.len()];
    // The symbols that occur, rarest first.
    let mut used: Vec<usize> = (0..counts.len()).filter(|&s| counts[s] > 0).collect();
    match used.len() {
        0 => return lengths,
        1 => {
            // Deflate wants a complete code: pair the lone symbol with another one.
            lengths[used[0]] = 1;
            lengths[usize::from(used[0] == 0)] = 1;
            return lengths;
        }
        _ => {}
    }
    used.sort_by_key(|&s| (counts[s], s));
    // Huffman's construction with two queues: the leaves in order, and the merged nodes,
    // which are made in order of weight. Nodes 0..n are leaves, n.. merged.
    let n = used.len();
    let mut weight: Vec<u64> = used.iter().map(|&s| counts[s] as u64).collect();
    let mut parent = vec![0usize; 2 * n - 1];
    let (mut leaf, mut merged) = (0, n);
    let take = |weight: &Vec<u64>, leaf: &mut usize, merged: &mut usize| {
        if *leaf < n && (*merged >= weight.len() || weight[*leaf] <= weight[*merged]) {
            *leaf += 1;
            *leaf - 1
        } else {
            *merged += 1;
            *merged - 1
        }
    };
    for _ in 0..n - 1 {
        let a = take(&weight, &mut leaf, &mut merged);
        let b = take(&weight, &mut leaf, &mut merged);
        let node = weight.len();
        weight.push(weight[a] + weight[b]);
        parent[a] = node;
        parent[b] = node;
    }
    // Depths from the root (the last node) down.
    let root = 2 * n - 2;
    let mut depth = vec![0usize; 2 * n - 1];
    for node in (0..root).rev() {
        depth[node] = depth[parent[node]] + 1;
    }
    let deepest = depth[..n].iter().copied().max().unwrap_or(0);
    let mut per_length = vec![0u32; deepest.max(limit) + 1];
    for &d in &depth[..n] {
        per_length[d] += 1;
    }
    // Too deep: move leaves up, keeping the code complete (JPEG's Annex K.3 adjustment): two
    // leaves at the deepest level become one a level up, and a shallower leaf splits.
    for i in (limit + 1..=deepest).rev() {
        while per_length[i] > 0 {
            let mut j = i - 2;
            while per_length[j] == 0 {
                j -= 1;
            }
            per_length[i] -= 2;
            per_length[i - 1] += 1;
            per_length[j + 1] += 2;
            per_length[j] -= 1;
        }
    }
    // The rarest symbols get the longest codes.
    let mut rarest = used.iter();
    for length in (1..=limit).rev() {
        for _ in 0..per_length[length] {
            lengths[*rarest.next().expect("as many lengths as symbols")] = length as u8;
        }
    }
    lengths
}

/// The canonical codes of `lengths` (RFC 1951, 3.2.2), bit-reversed: deflate sends a code's
/// first bit first into the low end of each byte.
fn canonical_codes(lengths: &[u8]) -> Vec<u16> {
    let mut per_length = [0u16; 16];
    for &l in lengths {
        per_length[l as usize] += 1;
    }
    per_length[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for bits in 1..16 {
        code = (code + per_length[bits - 1]) << 1;
        next[bits] = code;
    }
    lengths
        .iter()
        .map(|&l| {
            if l == 0 {
                return 0;
            }
            let c = next[l as usize];
            next[l as usize] += 1;
            c.reverse_bits() >> (16 - l)
        })
        .collect()
}

/// A dynamic block's header after its type: the literal code's lengths (and two one-bit
/// distance codes, which no symbol uses: decoders want a complete distance code), run-length
/// coded with the code-length code, whose own lengths come first.
fn write_code_lengths(out: &mut Bits, literal_lengths: &[u8]) {
    let mut all = literal_lengths.to_vec();
    all.extend_from_slice(&[1, 1]);
    // (symbol, extra bits, how many extra bits)
    let mut runs: Vec<(usize, u32, u32)> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let l = all[i];
        let mut run = 1;
        while i + run < all.len() && all[i + run] == l {
            run += 1;
        }
        i += run;
        if l == 0 {
            while run >= 11 {
                let r = run.min(138);
                runs.push((18, (r - 11) as u32, 7));
                run -= r;
            }
            if run >= 3 {
                runs.push((17, (run - 3) as u32, 3));
                run = 0;
            }
        } else {
            runs.push((l as usize, 0, 0));
            run -= 1;
            while run >= 3 {
                let r = run.min(6);
                runs.push((16, (r - 3) as u32, 2));
                run -= r;
            }
        }
        for _ in 0..run {
            runs.push((l as usize, 0, 0));
        }
    }
    let mut counts = [0u32; 19];
    for &(s, _, _) in &runs {
        counts[s] += 1;
    }
    let lengths = code_lengths(&counts, MAX_LENGTH_BITS);
    let codes = canonical_codes(&lengths);
    let listed = LENGTH_ORDER
        .iter()
        .rposition(|&s| lengths[s] > 0)
        .map_or(4, |last| (last + 1).max(4));
    out.put((LITERALS - 257) as u64, 5); // HLIT: 257 literal/length codes
    out.put(1, 5); // HDIST: 2 distance codes
    out.put((listed - 4) as u64, 4); // HCLEN
    for &s in &LENGTH_ORDER[..listed] {
        out.put(lengths[s] as u64, 3);
    }
    for (s, extra, extra_bits) in runs {
        out.put(codes[s] as u64, lengths[s] as u32);
        out.put(extra as u64, extra_bits);
    }
}

/// Bits packed into bytes from the low end, as deflate sends them.
struct Bits {
    out: Vec<u8>,
    pending: u64,
    count: u32,
}

impl Bits {
    fn with_capacity(bytes: usize) -> Bits {
        Bits {
            out: Vec::with_capacity(bytes),
            pending: 0,
            count: 0,
        }
    }

    /// Appends the low `bits` bits of `value` (at most 32).
    fn put(&mut self, value: u64, bits: u32) {
        self.pending |= value << self.count;
        self.count += bits;
        while self.count >= 8 {
            self.out.push(self.pending as u8);
            self.pending >>= 8;
            self.count -= 8;
        }
    }

    /// Appends each byte's code from `table` (code | length << 16): three codes (at most 45
    /// bits) join the under 8 bits pending, then the whole bytes are stored at once.
    fn put_bytes(&mut self, data: &[u8], table: &[u32]) {
        let start = self.out.len();
        // Room for the codes and the 8-byte stores past the end.
        self.out.resize(start + data.len() * 15 / 8 + 16, 0);
        let (mut at, mut pending, mut count) = (start, self.pending, self.count);
        let out = &mut self.out;
        let add = |pending: &mut u64, count: &mut u32, b: u8| {
            let entry = table[b as usize];
            *pending |= ((entry & 0xffff) as u64) << *count;
            *count += entry >> 16;
        };
        let mut store = |at: &mut usize, pending: &mut u64, count: &mut u32| {
            out[*at..*at + 8].copy_from_slice(&pending.to_le_bytes());
            let whole = *count / 8;
            *at += whole as usize;
            *pending = pending.checked_shr(whole * 8).unwrap_or(0);
            *count -= whole * 8;
        };
        let mut threes = data.chunks_exact(3);
        for c in &mut threes {
            add(&mut pending, &mut count, c[0]);
            add(&mut pending, &mut count, c[1]);
            add(&mut pending, &mut count, c[2]);
            store(&mut at, &mut pending, &mut count);
        }
        for &b in threes.remainder() {
            add(&mut pending, &mut count, b);
            store(&mut at, &mut pending, &mut count);
        }
        self.out.truncate(at);
        self.pending = pending;
        self.count = count;
    }

    /// Pads with zero bits to the next byte boundary.
    fn align(&mut self) {
        if self.count > 0 {
            self.out.push(self.pending as u8);
        }
        self.pending = 0;
        self.count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Decompress, FlushDecompress};

    /// Pieces joined as the PNG writer joins them, ended by a final empty block, inflated
    /// by zlib-rs.
    fn inflate(pieces: &[Vec<u8>], expected_len: usize) -> Vec<u8> {
        let mut stream: Vec<u8> = pieces.concat();
        stream.extend_from_slice(&[0x03, 0x00]);
        let mut out = Vec::with_capacity(expected_len + 16);
        let mut d = Decompress::new(false);
        d.decompress_vec(&stream, &mut out, FlushDecompress::Finish)
            .expect("a valid deflate stream");
        assert_eq!(d.total_in() as usize, stream.len(), "the whole stream read");
        out
    }

    fn xorshift(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect()
    }

    #[test]
    fn pieces_of_any_kind_inflate_to_their_bytes() {
        let mut cases: Vec<Vec<u8>> = vec![
            vec![],
            vec![0],
            vec![7; 5],
            vec![0; 100_000],
            vec![255; 3],
            (0..=255).collect(),
            xorshift(300_000, 1),
            // Mostly small values, as filtered smooth images are.
            xorshift(200_000, 2).iter().map(|b| b % 5).collect(),
        ];
        for n in 1..12 {
            cases.push(xorshift(n, n as u32 + 10));
        }
        // Counts in a Fibonacci sequence: Huffman's tree is as deep as there are symbols,
        // far past 15 bits, so the lengths must be limited.
        let mut skewed = Vec::new();
        let (mut a, mut b) = (1usize, 1usize);
        for value in 0..27u8 {
            skewed.extend(std::iter::repeat_n(value, a));
            (a, b) = (b, a + b);
        }
        cases.push(skewed);
        for data in &cases {
            let piece = deflate_literals(data);
            assert_eq!(inflate(&[piece], data.len()), *data, "{} bytes", data.len());
        }
        let pieces: Vec<Vec<u8>> = cases.iter().map(|d| deflate_literals(d)).collect();
        let joined = cases.concat();
        assert_eq!(inflate(&pieces, joined.len()), joined, "pieces joined");
    }

    #[test]
    fn lengths_are_limited_complete_and_favour_the_common() {
        let counts: Vec<u32> = (0..40).map(|i| 1u32 << (i % 31)).collect();
        for limit in [7, 15] {
            let lengths = code_lengths(&counts, limit);
            assert!(lengths.iter().all(|&l| (1..=limit as u8).contains(&l)));
            let kraft: f64 = lengths.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
            assert!((kraft - 1.0).abs() < 1e-12, "complete: {kraft}");
            for a in 0..counts.len() {
                for b in 0..counts.len() {
                    if counts[a] > counts[b] {
                        assert!(lengths[a] <= lengths[b], "{a} {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn random_bytes_cost_about_eight_bits_and_small_values_less() {
        let random = xorshift(1 << 18, 3);
        assert!(deflate_literals(&random).len() < random.len() + random.len() / 50);
        let small: Vec<u8> = random.iter().map(|b| b & 3).collect();
        assert!(deflate_literals(&small).len() < small.len() / 3);
    }
}
