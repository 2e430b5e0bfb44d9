//! Orders: the domain's seam module.

pub mod pricing;

/// An order's identifier. Only this crate mints one, so an id cannot be confused with a count.
///
/// ```
/// let id = demo_crate::OrderId::new(7);
/// assert_eq!(id.get(), 7);
/// ```
pub struct OrderId(u64);

impl OrderId {
    /// Wraps a raw id.
    ///
    /// ```
    /// assert_eq!(demo_crate::OrderId::new(1).get(), 1);
    /// ```
    pub fn new(raw: u64) -> Self {
        OrderId(raw)
    }

    /// The raw id.
    ///
    /// ```
    /// assert_eq!(demo_crate::OrderId::new(2).get(), 2);
    /// ```
    pub fn get(&self) -> u64 {
        self.0
    }
}

/// How many units of an item an order line asks for; never zero.
///
/// ```
/// assert!(demo_crate::Quantity::new(0).is_none());
/// ```
pub struct Quantity(u32);

impl Quantity {
    /// `None` for zero.
    ///
    /// ```
    /// assert_eq!(demo_crate::Quantity::new(3).map(|q| q.get()), Some(3));
    /// ```
    pub fn new(units: u32) -> Option<Self> {
        (units > 0).then_some(Quantity(units))
    }

    /// The number of units.
    ///
    /// ```
    /// assert_eq!(demo_crate::Quantity::new(5).map(|q| q.get()), Some(5));
    /// ```
    pub fn get(&self) -> u32 {
        self.0
    }
}
