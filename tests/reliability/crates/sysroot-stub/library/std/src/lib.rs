//! A stand-in for `std`.
#![no_std]
