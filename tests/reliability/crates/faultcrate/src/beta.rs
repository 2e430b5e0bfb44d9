//! The beta module.

pub fn beta_value() -> u32 {
    7
}
