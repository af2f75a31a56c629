//! The `uttt` command: all the work is in the library's `cli` module.

fn main() {
    std::process::exit(uttt::cli::main_exit_code());
}
