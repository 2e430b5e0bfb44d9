//! A small shop: orders, prices and the settings they read.
//!
//! This file is the crate's seam: what it makes `pub` is what other crates build on.

pub mod config;
pub mod orders;

pub use orders::{OrderId, Quantity};

/// Reads an order line such as `"17 x3"` into its id and quantity.
///
/// ```
/// let (id, qty) = demo_crate::parse_line("17 x3").expect("a well-formed line");
/// assert_eq!(id.get(), 17);
/// assert_eq!(qty.get(), 3);
/// ```
pub fn parse_line(line: &str) -> Option<(OrderId, Quantity)> {
    let (id, qty) = line.split_once(" x")?;
    Some((OrderId::new(id.trim().parse().ok()?), Quantity::new(qty.trim().parse().ok()?)?))
}

/// The total of an order line in cents, after the shop's discount.
pub fn line_total_cents(sku: &str, qty: Quantity) -> Result<u64, orders::pricing::UnknownSku> {
    let gross = orders::pricing::gross_cents(sku, qty)?;
    Ok(gross - gross * u64::from(orders::pricing::discount_percent()) / 100)
}
