//! Cutting a bake into tiles and tiles into shards. A tile is a window of the whole view
//! (`View::tile`), so a stitched set of tiles equals a single bake bit for bit; a shard is a
//! share of the work units that one process of a job array bakes with no coordination.

use crate::graph::View;

/// A grid of `tile` x `tile` pixel tiles over an image (tiles cover x and y; edge tiles are
/// smaller when the size is not a multiple of the tile size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileGrid {
    /// Image size in pixels (x, y).
    pub size: [u32; 2],
    /// Tile size in pixels (x, y).
    pub tile: [u32; 2],
}

/// One tile: its column and row in the grid, pixel offset and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    /// Row-major index of the tile in the grid.
    pub index: usize,
    /// Column in the grid.
    pub column: u32,
    /// Row in the grid.
    pub row: u32,
    /// Pixel offset of the tile's corner (x, y).
    pub offset: [u32; 2],
    /// Tile size in pixels (x, y).
    pub size: [u32; 2],
}

impl TileGrid {
    /// A grid of square `tile`-pixel tiles (tile >= 1) over a `size` image.
    pub fn new(size: [u32; 2], tile: u32) -> TileGrid {
        TileGrid::with_tile_size(size, [tile, tile])
    }
    /// A grid of `tile[0]` x `tile[1]` pixel tiles (each at least 1, at most the image).
    pub fn with_tile_size(size: [u32; 2], tile: [u32; 2]) -> TileGrid {
        TileGrid {
            size,
            tile: [
                tile[0].max(1).min(size[0]).max(1),
                tile[1].max(1).min(size[1]).max(1),
            ],
        }
    }
    /// Number of tile columns.
    pub fn columns(&self) -> u32 {
        self.size[0].div_ceil(self.tile[0])
    }
    /// Number of tile rows.
    pub fn rows(&self) -> u32 {
        self.size[1].div_ceil(self.tile[1])
    }
    /// Total number of tiles.
    pub fn count(&self) -> usize {
        self.columns() as usize * self.rows() as usize
    }
    /// Tile `index` in row-major order.
    pub fn tile(&self, index: usize) -> Tile {
        let column = (index % self.columns() as usize) as u32;
        let row = (index / self.columns() as usize) as u32;
        let offset = [column * self.tile[0], row * self.tile[1]];
        Tile {
            index,
            column,
            row,
            offset,
            size: [
                self.tile[0].min(self.size[0] - offset[0]),
                self.tile[1].min(self.size[1] - offset[1]),
            ],
        }
    }
    /// Every tile, in row-major order.
    pub fn tiles(&self) -> impl Iterator<Item = Tile> + '_ {
        (0..self.count()).map(|i| self.tile(i))
    }
}

impl Tile {
    /// The view of this tile within `whole` (all of its depth).
    pub fn view(&self, whole: &View) -> View {
        whole.tile(
            [self.offset[0], self.offset[1], 0],
            [self.size[0], self.size[1], whole.size[2]],
        )
    }
}

/// The pieces of `view` (tiles of it, x fastest, then y, then z) each at most `max[a]`
/// pixels along axis `a`: the view itself when it fits. Each axis is cut into equal shares
/// (sizes differ by at most one), so a volume cut along z keeps at least two slices per piece
/// whenever `max[2]` is at least 4, and each piece stays a volume.
pub fn pieces_within(view: &View, max: [u32; 3]) -> Vec<View> {
    let cuts: [Vec<(u32, u32)>; 3] = std::array::from_fn(|a| {
        let side = view.size[a];
        let count = side.div_ceil(max[a].max(1)).max(1);
        (0..count)
            .map(|i| {
                let start = (u64::from(side) * u64::from(i) / u64::from(count)) as u32;
                let end = (u64::from(side) * u64::from(i + 1) / u64::from(count)) as u32;
                (start, end - start)
            })
            .collect()
    });
    if cuts.iter().all(|c| c.len() == 1) {
        return vec![*view];
    }
    let mut pieces = Vec::new();
    for &(z, d) in &cuts[2] {
        for &(y, h) in &cuts[1] {
            for &(x, w) in &cuts[0] {
                pieces.push(view.tile([x, y, z], [w, h, d]));
            }
        }
    }
    pieces
}

/// Share `index` of `count` (0-based: `0/4` .. `3/4`), as Kubernetes indexed Jobs and
/// `SLURM_ARRAY_TASK_ID` with `--array=0-(N-1)` number them. Unit `u` belongs to share
/// `u % count`, so shares differ in size by at most one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This share's 0-based index.
    pub index: u32,
    /// Number of shares.
    pub count: u32,
}

impl Shard {
    /// Parses "I/N" with 0 <= I < N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = |why: &str| {
            format!("--shard: {why} (got '{text}'; expected I/N with 0 <= I < N, e.g. 0/4)")
        };
        let (i, n) = text.split_once('/').ok_or_else(|| bad("no '/'"))?;
        let index: u32 = i
            .trim()
            .parse()
            .map_err(|_| bad("I is not a whole number"))?;
        let count: u32 = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        if count == 0 {
            return Err(bad("N must be at least 1"));
        }
        if index >= count {
            return Err(bad("I must be less than N (shares are numbered from 0)"));
        }
        Ok(Shard { index, count })
    }
    /// Whether work unit `unit` belongs to this share.
    pub fn contains(&self, unit: usize) -> bool {
        unit % self.count as usize == self.index as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_covers_the_image_once_with_clipped_edges() {
        let grid = TileGrid::new([100, 70], 32);
        assert_eq!((grid.columns(), grid.rows(), grid.count()), (4, 3, 12));
        let mut covered = vec![0u8; 100 * 70];
        for t in grid.tiles() {
            for y in t.offset[1]..t.offset[1] + t.size[1] {
                for x in t.offset[0]..t.offset[0] + t.size[0] {
                    covered[(y * 100 + x) as usize] += 1;
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1));
        assert_eq!(grid.tile(11).size, [4, 6]);
    }

    #[test]
    fn shards_partition_the_units() {
        for n in 1..6 {
            for unit in 0..40 {
                let owners = (0..n)
                    .filter(|&i| Shard { index: i, count: n }.contains(unit))
                    .count();
                assert_eq!(owners, 1);
            }
        }
        assert!(Shard::parse("3/2").is_err());
        assert!(Shard::parse("0/0").is_err());
        assert!(Shard::parse("2/2").is_err());
        assert_eq!(Shard::parse(" 1/ 3").unwrap(), Shard { index: 1, count: 3 });
    }

    #[test]
    fn pieces_cover_the_view_once_within_the_limit() {
        let whole = View::volume(5, 3, 1001).with_origin([2.0, 0.0, -7.0]);
        let pieces = pieces_within(&whole, [4, 64, 256]);
        assert_eq!(pieces.len(), 2 * 4);
        let mut covered = vec![0u8; 5 * 3 * 1001];
        for p in &pieces {
            assert!(p.size[0] <= 4 && p.size[2] <= 256 && p.is_volume(), "{p:?}");
            assert_eq!(p.full_size(), whole.size);
            let [ox, oy, oz] = p.pixel_offset();
            for z in oz..oz + p.size[2] {
                for y in oy..oy + p.size[1] {
                    for x in ox..ox + p.size[0] {
                        covered[((z * 3 + y) * 5 + x) as usize] += 1;
                    }
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1));
        assert_eq!(pieces_within(&whole, [5, 3, 1001]), vec![whole]);
    }

    #[test]
    fn a_tile_view_keeps_the_whole_views_numbers() {
        let whole = View::image(100, 70).with_origin([1e6, -2.0, 0.0]);
        let t = TileGrid::new([100, 70], 32).tile(5);
        let v = t.view(&whole);
        assert_eq!(v.size, [32, 32, 1]);
        assert_eq!(v.origin, whole.origin);
        assert_eq!(v.full_size(), [100, 70, 1]);
        assert_eq!(v.pixel_offset(), [32, 32, 0]);
        assert!(v.check().is_ok());
    }
}
