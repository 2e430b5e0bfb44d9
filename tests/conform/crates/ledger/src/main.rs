//! The binary: an env root, where reading the environment is the job.

fn main() {
    let account = std::env::args().nth(1).unwrap_or_default();
    let width = std::env::var("LEDGER_WIDTH").ok();
    println!("{} {width:?} {}", ledger::report::render(&account, 0), ledger::settings::data_dir());
}
