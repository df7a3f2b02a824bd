use std::process::ExitCode;

fn main() -> ExitCode {
    gfxpatch::cli::main()
}
