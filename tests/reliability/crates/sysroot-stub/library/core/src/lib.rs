//! A stand-in for `core`: the fault crate needs nothing of it, and the analyzer finds a sysroot here
//! instead of asking rustup to install one.
#![no_core]
