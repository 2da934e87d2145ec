//! Scene files (TOML): under construction on the `scene` branch.
