//! Display-only progress of the longest computation in flight (the PLD accountant's repeated
//! squarings), for front ends that draw their own bar (the Python package polls it while a
//! call runs). It carries no number that is reported: process-wide, last writer wins, so two
//! concurrent long computations share one indicator.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static STATE: AtomicU64 = AtomicU64::new(0);
static LINES: AtomicBool = AtomicBool::new(true);

/// Whether the library draws its own progress lines on stderr: only when stderr is a terminal,
/// and not after a front end that draws its own bar (the Python package) turned them off.
pub fn stderr_lines() -> bool {
    LINES.load(Ordering::Relaxed) && std::io::IsTerminal::is_terminal(&std::io::stderr())
}

/// Allow (the default) or forbid the library's own stderr progress lines, process-wide.
pub fn set_stderr_lines(on: bool) {
    LINES.store(on, Ordering::Relaxed);
}

/// Run `f`, and while it runs longer than two seconds keep one line on a terminal's stderr
/// saying that `what` is still being computed and for how long, erased when `f` returns. It
/// stays silent when [`stderr_lines`] is off (pipes, files, CI logs, the Python package) and
/// while a computation reports its own progress (the PLD accountant's squarings, through
/// `note`): every long command says something, and nothing is said twice. Display only.
pub fn heartbeat<T>(what: &str, f: impl FnOnce() -> T) -> T {
    if !stderr_lines() {
        return f();
    }
    reset();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|sc| {
        let ticker = sc.spawn(|| {
            let start = std::time::Instant::now();
            let (mut shown, mut last) = (false, 0);
            while !done.load(Ordering::Relaxed) {
                std::thread::park_timeout(std::time::Duration::from_millis(250));
                let secs = start.elapsed().as_secs();
                if secs >= 2 && secs != last && get().1 == 0 && !done.load(Ordering::Relaxed) {
                    last = secs;
                    show(&format!(
                        "\r{what}: still computing ({secs} s; Ctrl-C stops it)\x1b[K"
                    ));
                    shown = true;
                }
            }
            if shown {
                show("\r\x1b[K");
            }
        });
        // set `done` however `f` ends (a panic included: the scope joins the ticker before
        // the panic goes on, and the ticker wakes every 250 ms to see it)
        struct Stop<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }
        let out = {
            let _stop = Stop(&done);
            f()
        };
        ticker.thread().unpark();
        let _ = ticker.join();
        out
    })
}

/// Record that `done` of `total` steps are finished (each saturated to 32 bits).
pub(crate) fn note(done: u64, total: u64) {
    STATE.store(pack(done, total), Ordering::Relaxed);
}

fn pack(done: u64, total: u64) -> u64 {
    (done.min(u32::MAX as u64) << 32) | total.min(u32::MAX as u64)
}

fn unpack(s: u64) -> (u64, u64) {
    (s >> 32, s & 0xffff_ffff)
}

/// Write a progress line (or its erasure) to standard error, ignoring a failure: a full or
/// closed stderr never stops a computation.
pub(crate) fn show(text: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(text.as_bytes()).and_then(|()| e.flush());
}

/// Forget the last computation's progress (a front end calls this before starting one).
pub fn reset() {
    STATE.store(0, Ordering::Relaxed);
}

/// `(done, total)` of the computation in flight; `total = 0` when none has reported.
pub fn get() -> (u64, u64) {
    unpack(STATE.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips_and_saturates() {
        // (the global itself is shared with concurrently running accountant tests)
        use super::{pack, unpack};
        assert_eq!(unpack(pack(3, 24)), (3, 24));
        assert_eq!(unpack(pack(u64::MAX, 5)), (u32::MAX as u64, 5));
        assert_eq!(unpack(pack(7, u64::MAX)), (7, u32::MAX as u64));
    }
}
