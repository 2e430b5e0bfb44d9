//! The alpha module.

pub fn alpha_value() -> u32 {
    7
}
