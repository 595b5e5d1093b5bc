//! What template.yaml puts on the HTTP API, for the functions' route tests.

/// `(binary, method, path)` of every HttpApi event of the functions whose binary starts with
/// `prefix` (`"orcade-"`, `"xchange-"`) in template.yaml.
pub fn http_routes(prefix: &str) -> Vec<(String, String, String)> {
    let template = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml")).expect("template.yaml");
    let mut binary = String::new();
    let mut routes = Vec::new();
    for line in template.lines() {
        if let Some(rest) = line.split("Binary: ").nth(1) {
            binary = rest.trim_end_matches(['}', ' ']).to_owned();
        }
        if let (true, Some(method), Some(path)) = (binary.starts_with(prefix), line.split("Method: ").nth(1), line.split("Path: ").nth(1)) {
            let method = method.split(',').next().unwrap_or_default().trim().to_owned();
            // Quoted (`"/bid-jobs/{bid_job_id}"`) or not (`/submit-vote`).
            let path = path.trim_end_matches(['}', ' ']).trim_matches('"');
            routes.push((binary.clone(), method, path.to_owned()));
        }
    }
    routes
}

/// Asserts that the HTTP API holds exactly the routes `spec` for the functions of `prefix`, and
/// that each goes to the binary `binary_of(method, path)` names for it, `path` made concrete by
/// `concrete` (its `{…}` parameters filled in), as API Gateway would send it.
pub fn assert_routes(
    prefix: &str,
    spec: &[(&str, &str)],
    concrete: impl Fn(&str) -> String,
    binary_of: impl Fn(&str, &str) -> &'static str,
) {
    let routes = http_routes(prefix);
    assert_eq!(routes.len(), spec.len(), "{routes:?}");
    for &(method, path) in spec {
        let (binary, ..) = routes
            .iter()
            .find(|(_, m, p)| m == method && p == path)
            .unwrap_or_else(|| panic!("{method} {path} is not on the HTTP API: {routes:?}"));
        assert_eq!(binary_of(method, &concrete(path)), binary, "{method} {path}");
    }
}
