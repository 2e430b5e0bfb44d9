//! The gamma module.

pub fn gamma_value() -> u32 {
    7
}
