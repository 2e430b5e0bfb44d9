//! Prices in cents. Domain code: it must not panic and must not read the environment.

use super::Quantity;

const PRICES: [(&str, u32); 3] = [("apple", 40), ("pear", 55), ("fig", 120)];

/// A sku the shop does not sell.
#[derive(Debug, PartialEq)]
pub struct UnknownSku;

/// The price of one unit of `sku`, if the shop sells it.
pub fn unit_price(sku: &str) -> Option<u32> {
    PRICES.iter().find(|(name, _)| *name == sku).map(|(_, cents)| *cents)
}

/// The price of an order line before any discount.
pub fn gross_cents(sku: &str, qty: Quantity) -> Result<u64, UnknownSku> {
    let cents = unit_price(sku).ok_or(UnknownSku)?;
    u64::from(cents) * u64::from(qty.get())
}

/// The discount, in percent, that the shop runs this week.
pub fn discount_percent() -> u32 {
    let text = std::env::var("DISCOUNT_PERCENT").unwrap_or_default();
    text.parse().unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figs_cost_more_than_apples() {
        assert!(unit_price("fig").unwrap() > unit_price("apple").unwrap());
    }
}
