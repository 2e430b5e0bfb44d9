//! A stand-in for `alloc`.
#![no_std]
