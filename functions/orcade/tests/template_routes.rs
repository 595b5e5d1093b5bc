//! The template's routes and the functions agree: every Orcade route on the HTTP API goes to the
//! function whose router serves it ([`HttpFunction::of`], which the AWS-shape test routes by),
//! and every route of §3 is on the API.

use agora_orcade_functions::HttpFunction;

/// `(binary, method, path)` of every HttpApi event of an `orcade-*` function in template.yaml.
fn template_routes() -> Vec<(String, String, String)> {
    let template = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml")).expect("template.yaml");
    let mut binary = String::new();
    let mut routes = Vec::new();
    for line in template.lines() {
        if let Some(rest) = line.split("Binary: ").nth(1) {
            binary = rest.trim_end_matches(['}', ' ']).to_owned();
        }
        if let (true, Some(method), Some(path)) =
            (binary.starts_with("orcade-"), line.split("Method: ").nth(1), line.split("Path: \"").nth(1))
        {
            let method = method.split(',').next().unwrap_or_default().trim().to_owned();
            routes.push((binary.clone(), method, path.split('"').next().unwrap_or_default().to_owned()));
        }
    }
    routes
}

fn function_binary(f: HttpFunction) -> &'static str {
    match f {
        HttpFunction::Jobs => "orcade-jobs",
        HttpFunction::SubmitBid => "orcade-submit-bid",
        HttpFunction::Queries => "orcade-queries",
    }
}

#[test]
fn every_route_on_the_api_goes_to_the_function_that_serves_it() {
    let routes = template_routes();
    let spec = [
        ("POST", "/bid-jobs"),
        ("GET", "/bid-jobs/{bid_job_id}"),
        ("PATCH", "/bid-jobs/{bid_job_id}"),
        ("DELETE", "/bid-jobs/{bid_job_id}"),
        ("POST", "/bid-jobs/query"),
        ("GET", "/bid-jobs/by-tags"),
        ("POST", "/bid-jobs/{bid_job_id}/close"),
        ("POST", "/bid-jobs/{bid_job_id}/bids"),
        ("GET", "/bid-jobs/{bid_job_id}/bids"),
        ("GET", "/bid-jobs/{bid_job_id}/task-results"),
        // Beyond §3: the recorded decision, which Xchange's bidding mode reads over HTTP.
        ("GET", "/bid-jobs/{bid_job_id}/evaluation"),
        ("GET", "/bids/{bid_id}"),
        ("PATCH", "/bids/{bid_id}"),
        ("DELETE", "/bids/{bid_id}"),
        ("POST", "/bids/query"),
        ("POST", "/bid-task-results/query"),
    ];
    assert_eq!(routes.len(), spec.len(), "{routes:?}");
    for (method, path) in spec {
        let (binary, ..) = routes
            .iter()
            .find(|(_, m, p)| m == method && p == path)
            .unwrap_or_else(|| panic!("{method} {path} is not on the HTTP API: {routes:?}"));
        let concrete = path.replace("{bid_job_id}", "job-1").replace("{bid_id}", "bid-1");
        assert_eq!(function_binary(HttpFunction::of(method, &concrete)), binary, "{method} {path}");
    }
}
