//! The one place that reads the process environment (an `env_roots` entry in conform.toml).

/// The shop's display name, from `SHOP_NAME`.
pub fn shop_name() -> String {
    std::env::var("SHOP_NAME").unwrap_or_else(|_| String::from("Demo shop"))
}
