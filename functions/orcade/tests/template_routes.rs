//! The template's routes and the functions agree: every Orcade route on the HTTP API goes to the
//! function whose router serves it ([`HttpFunction::of`], which the AWS-shape test routes by),
//! and every route of §3 is on the API.

use agora_orcade_functions::HttpFunction;

fn function_binary(f: HttpFunction) -> &'static str {
    match f {
        HttpFunction::Jobs => "orcade-jobs",
        HttpFunction::SubmitBid => "orcade-submit-bid",
        HttpFunction::Queries => "orcade-queries",
    }
}

#[test]
fn every_route_on_the_api_goes_to_the_function_that_serves_it() {
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
    agora_e2e::template::assert_routes(
        "orcade-",
        &spec,
        |path| path.replace("{bid_job_id}", "job-1").replace("{bid_id}", "bid-1"),
        |method, path| function_binary(HttpFunction::of(method, path)),
    );
}
