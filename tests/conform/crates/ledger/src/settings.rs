//! Settings from the environment: this file is an env root in conform.toml.

use std::env;
use std::env::var as getenv;

pub fn data_dir() -> String {
    env::var("LEDGER_DIR").unwrap_or_else(|_| ".".to_string())
}

pub fn user() -> Option<String> {
    getenv("USER").ok()
}
