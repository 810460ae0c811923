//! Feeding encoders that pull their rows: the `exr` and `tiff` crates' writers run to the end
//! of the file inside one call, asking for each block's rows, while a bake pushes bands as it
//! makes them. Such an encoder runs on a thread of its own and is handed one band at a time:
//! [`PulledWriter::write_band`] returns once the encoder has taken every row of the band it
//! can use and asks for more, so the band is freed as soon as its blocks are queued. Memory
//! then holds what a `.npy` bake holds (the band being written, one waiting, one being baked)
//! and the blocks being compressed, never a copy of a band or the image.

use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::JoinHandle;

/// Numbers a borrowed slice is copied in at most, when it is handed over in pieces
/// ([`PulledWriter::write_rows`]): 4 MiB of f32.
const PIECE_NUMBERS: usize = 1 << 20;

/// An encoder running on its own thread, fed whole rows by [`PulledWriter::write_band`].
pub(crate) struct PulledWriter {
    /// Bands to the encoder; a rendezvous (no band waits inside the channel).
    bands: Option<SyncSender<Vec<f32>>>,
    /// One message each time the encoder has used every band sent and waits for the next.
    wants: Receiver<()>,
    worker: Option<JoinHandle<Result<(), String>>>,
    /// Numbers per row.
    row: usize,
}

impl PulledWriter {
    /// Starts `encode` on a thread named `name`; it reads rows of `row` numbers from the
    /// [`Rows`] it is given and returns its error as text.
    pub(crate) fn spawn(
        name: &str,
        row: usize,
        encode: impl FnOnce(&mut Rows) -> Result<(), String> + Send + 'static,
    ) -> Result<Self, String> {
        let (bands, received) = std::sync::mpsc::sync_channel::<Vec<f32>>(0);
        let (want, wants) = std::sync::mpsc::sync_channel::<()>(1);
        let worker = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let mut rows = Rows {
                    received,
                    want,
                    pending: Vec::new(),
                    first_row: 0,
                    row,
                    started: false,
                };
                encode(&mut rows)
            })
            .map_err(|e| format!("cannot start the {name} thread: {e}"))?;
        Ok(PulledWriter {
            bands: Some(bands),
            wants,
            worker: Some(worker),
            row,
        })
    }

    /// Hands whole rows to the encoder and waits until it has used them (or finished the
    /// file, after the last rows).
    pub(crate) fn write_band(&mut self, band: Vec<f32>) -> Result<(), String> {
        debug_assert!(band.len().is_multiple_of(self.row.max(1)));
        let bands = self.bands.as_ref().ok_or("the encoder already stopped")?;
        if bands.send(band).is_err() {
            // The encoder stopped early: its error says why.
            return Err(self
                .join()
                .err()
                .unwrap_or_else(|| "the encoder stopped before the last row".into()));
        }
        // Either it asks for more, or it is done (or failed: the next send or `finish` tells)
        // and the sending side of `wants` is gone.
        let _ = self.wants.recv();
        Ok(())
    }

    /// [`write_band`](Self::write_band) of borrowed rows, copied a piece of about 4 MiB at a
    /// time.
    pub(crate) fn write_rows(&mut self, data: &[f32]) -> Result<(), String> {
        let rows = (PIECE_NUMBERS / self.row.max(1)).max(1);
        for piece in data.chunks(rows * self.row.max(1)) {
            self.write_band(piece.to_vec())?;
        }
        Ok(())
    }

    /// Waits for the encoder to finish the file (after the last row was sent).
    pub(crate) fn finish(mut self) -> Result<(), String> {
        self.join()
    }

    fn join(&mut self) -> Result<(), String> {
        self.bands = None;
        match self.worker.take() {
            Some(worker) => worker
                .join()
                .unwrap_or_else(|_| Err("the encoding thread panicked".into())),
            None => Err("the encoder already stopped".into()),
        }
    }
}

impl Drop for PulledWriter {
    fn drop(&mut self) {
        // Unfinished: the closed channel makes the encoder stop with an error.
        self.bands = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// The rows an encoder has received and not yet used, from `first_row` on.
pub(crate) struct Rows {
    received: Receiver<Vec<f32>>,
    want: SyncSender<()>,
    pending: Vec<f32>,
    first_row: usize,
    /// Numbers per row.
    row: usize,
    /// Whether a band has come (the first is sent without being asked for).
    started: bool,
}

impl Rows {
    /// Rows `start..start + count` (at or after the rows asked for before), waiting for bands
    /// until they have come; `None` when the bake stopped before them.
    pub(crate) fn get(&mut self, start: usize, count: usize) -> Option<&[f32]> {
        while self.pending.len() < (start + count - self.first_row) * self.row {
            // Drop what earlier blocks used before asking for more: once a band, not once a
            // block. A band used up entirely is freed here, before the next one comes.
            let used = ((start - self.first_row) * self.row).min(self.pending.len());
            if used == self.pending.len() {
                self.pending = Vec::new();
            } else {
                self.pending.drain(..used);
            }
            self.first_row += used / self.row;
            // The writer of the band just used waits for this.
            if self.started {
                let _ = self.want.send(());
            }
            let band = self.received.recv().ok()?;
            self.started = true;
            if self.pending.is_empty() {
                self.pending = band; // bands that end on a block: no copy
            } else {
                self.pending.extend_from_slice(&band);
            }
        }
        let from = (start - self.first_row) * self.row;
        Some(&self.pending[from..from + count * self.row])
    }
}
