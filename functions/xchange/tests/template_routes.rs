//! The template's routes and the functions agree: every Xchange route on the HTTP API goes to
//! the function whose router serves it ([`HttpFunction::of`], which the AWS-shape test routes
//! by), and every route of §3 is on the API.

use agora_xchange_functions::HttpFunction;

fn function_binary(f: HttpFunction) -> &'static str {
    match f {
        HttpFunction::SubmitTask => "xchange-submit-task",
        HttpFunction::Subjects => "xchange-subjects",
        HttpFunction::Queries => "xchange-queries",
    }
}

#[test]
fn every_route_on_the_api_goes_to_the_function_that_serves_it() {
    let spec = [
        ("POST", "/tasks"),
        ("GET", "/tasks/{task_id}"),
        ("GET", "/tasks/{task_id}/output"),
        ("POST", "/tasks/query"),
        ("POST", "/subjects"),
        ("GET", "/subjects/{subject_id}"),
        ("PATCH", "/subjects/{subject_id}"),
        ("DELETE", "/subjects/{subject_id}"),
        ("POST", "/subjects/query"),
    ];
    agora_e2e::template::assert_routes(
        "xchange-",
        &spec,
        |path| path.replace("{task_id}", "task-1").replace("{subject_id}", "subject-1"),
        |method, path| function_binary(HttpFunction::of(method, path)),
    );
}
