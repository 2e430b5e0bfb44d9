//! A small crate without std, so the analyzer starts in seconds: the fault tests restart it often.
#![no_std]

pub mod alpha;
pub mod beta;
pub mod gamma;

/// Adds two numbers.
pub fn add(left: u32, right: u32) -> u32 {
    left + right
}

pub struct Meters(u32);

pub fn twice(value: u32) -> u32 {
    let doubled = add(value, value);
    doubled
}
