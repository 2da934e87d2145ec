//! One naming helper for every GPU thing (STYLE.md practice 4): a pass's name is its debug label,
//! timer scope and pipeline name; its resources are `<pass>.<what>`, e.g. `fog.brick_march.out`.

/// The name of resource `what` owned by pass `pass`.
pub fn resource(pass: &str, what: &str) -> String {
    format!("{pass}.{what}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn resource_names_join_pass_and_what() {
        assert_eq!(super::resource("fog.brick_march", "out"), "fog.brick_march.out");
    }
}
