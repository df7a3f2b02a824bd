use std::process::ExitCode;

/// mimalloc, not glibc's malloc. A whole-library rewrite builds, edits and drops a program of
/// up to a million nodes per code object on every worker thread: with glibc, allocation was a
/// seventh of the run (docs/whole-library.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc.h's `mi_option_e` (mimalloc v3, which the `mimalloc`
/// crate builds by default).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

fn main() -> ExitCode {
    // Freed memory stays with the process: by default mimalloc gives it back to the kernel,
    // and the next code object's program faults it in again, zeroed (1.5 M page faults and
    // 5 s of system time over librocsparse; 12 K without purging). The peak is what it was.
    // SAFETY: set before any thread but this one exists; the option is read when purging.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    gfxpatch::cli::main()
}
