//! What a route reads from a request (`agora_http::body`), every refusal in this service's JSON
//! error: the body, read as bytes under [`body_limit`], and a path segment (a task or subject id).

agora_http::extractors!(crate::error::ApiError);
