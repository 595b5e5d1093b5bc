//! Tool input schemas from the OpenAPI document (`docs/openapi.json`, built into the binary):
//! the operation a tool calls, found by method and path, gives its parameters (path and query)
//! and its request body's schema, with every `$ref` resolved into one inline JSON Schema (OpenAPI
//! 3.1's schemas are JSON Schema 2020-12, which MCP tool schemas are too).

use serde_json::{Map, Value};

/// The OpenAPI document of the services.
pub const OPENAPI: &str = include_str!("../../../../docs/openapi.json");

/// OpenAPI's own keywords, which are no JSON Schema and mean nothing to an MCP client.
const OPENAPI_ONLY: &[&str] = &["discriminator", "xml", "externalDocs", "example"];

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SchemaError {
    #[error("docs/openapi.json is not JSON: {0}")]
    NotJson(String),
    #[error("docs/openapi.json has no operation {method} {path}")]
    NoOperation { method: String, path: String },
    #[error("docs/openapi.json: {0} does not resolve")]
    BadRef(String),
    #[error("docs/openapi.json: {method} {path} has no JSON request body")]
    NoBody { method: String, path: String },
    #[error("docs/openapi.json: the request body of {method} {path} is not an object with properties, so its fields cannot be the tool's arguments")]
    BodyNotObject { method: String, path: String },
}

/// A parameter of an operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    /// `path` or `query`.
    pub location: String,
    pub required: bool,
    pub schema: Value,
    pub description: Option<String>,
}

/// An operation of the document: its parameters (path ones in the order of the path) and its
/// JSON request body's schema, resolved.
#[derive(Debug, Clone)]
pub struct Operation {
    pub path_parameters: Vec<Parameter>,
    pub query_parameters: Vec<Parameter>,
    pub body: Option<Value>,
    pub summary: Option<String>,
}

/// The parsed document.
pub struct OpenApi {
    doc: Value,
}

impl OpenApi {
    /// The document built into the binary.
    pub fn embedded() -> Result<OpenApi, SchemaError> {
        OpenApi::parse(OPENAPI)
    }

    pub fn parse(text: &str) -> Result<OpenApi, SchemaError> {
        serde_json::from_str(text).map(|doc| OpenApi { doc }).map_err(|e| SchemaError::NotJson(e.to_string()))
    }

    /// The operation `method` `path`; `path` is a template whose parameter names need not be
    /// the document's (`/get-status/{id}` finds `/get-status/{social_task_id}`).
    pub fn operation(&self, method: &str, path: &str) -> Result<Operation, SchemaError> {
        let missing = || SchemaError::NoOperation { method: method.to_uppercase(), path: path.to_owned() };
        let wanted = shape_of(path);
        let (doc_path, item) = self
            .doc
            .get("paths")
            .and_then(Value::as_object)
            .and_then(|paths| paths.iter().find(|(p, _)| shape_of(p) == wanted))
            .ok_or_else(missing)?;
        let item = self.resolve(item)?;
        let op = item.get(method.to_lowercase()).ok_or_else(missing)?;
        // Path-level parameters, then the operation's, which override them by name and place.
        let mut parameters: Vec<Parameter> = Vec::new();
        for list in [item.get("parameters"), op.get("parameters")].into_iter().flatten() {
            for p in list.as_array().into_iter().flatten() {
                let p = self.resolve(p)?;
                let Some(parameter) = parameter_of(&p) else { continue };
                parameters.retain(|q| !(q.name == parameter.name && q.location == parameter.location));
                parameters.push(parameter);
            }
        }
        let names = placeholders(doc_path);
        let mut path_parameters = Vec::new();
        for name in &names {
            let declared = parameters.iter().find(|p| p.location == "path" && &p.name == name).cloned();
            path_parameters.push(declared.unwrap_or_else(|| Parameter {
                name: name.clone(),
                location: "path".into(),
                required: true,
                schema: serde_json::json!({"type": "string"}),
                description: None,
            }));
        }
        let query_parameters = parameters.into_iter().filter(|p| p.location == "query").collect();
        let body = match op.get("requestBody") {
            None => None,
            Some(body) => {
                let body = self.resolve(body)?;
                body.get("content")
                    .and_then(|c| c.get("application/json"))
                    .and_then(|c| c.get("schema"))
                    .map(|s| self.resolve(s))
                    .transpose()?
            }
        };
        let summary = op.get("summary").or_else(|| op.get("description")).and_then(Value::as_str).map(str::to_owned);
        Ok(Operation { path_parameters, query_parameters, body, summary })
    }

    /// `value` with every `$ref` (local: `#/...`) replaced by what it points to, siblings of a
    /// `$ref` kept over the target's (3.1), and OpenAPI-only keywords dropped. A `$ref` met again
    /// inside its own target (a recursive schema, such as a filter's `$and`) is left open (`{}`).
    fn resolve(&self, value: &Value) -> Result<Value, SchemaError> {
        self.resolve_in(value, &mut Vec::new())
    }

    fn resolve_in(&self, value: &Value, refs: &mut Vec<String>) -> Result<Value, SchemaError> {
        match value {
            Value::Object(object) => {
                let mut out = Map::new();
                if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
                    if refs.iter().any(|r| r == reference) {
                        return Ok(Value::Object(Map::new()));
                    }
                    let target = reference
                        .strip_prefix('#')
                        .and_then(|pointer| self.doc.pointer(pointer))
                        .ok_or_else(|| SchemaError::BadRef(reference.to_owned()))?;
                    refs.push(reference.to_owned());
                    let resolved = self.resolve_in(target, refs);
                    refs.pop();
                    if let Value::Object(target) = resolved? {
                        out = target;
                    }
                }
                for (key, item) in object {
                    if key == "$ref" || OPENAPI_ONLY.contains(&key.as_str()) {
                        continue;
                    }
                    out.insert(key.clone(), self.resolve_in(item, refs)?);
                }
                Ok(Value::Object(out))
            }
            Value::Array(items) => items.iter().map(|i| self.resolve_in(i, refs)).collect::<Result<Vec<_>, _>>().map(Value::Array),
            other => Ok(other.clone()),
        }
    }
}

/// A parameter object as a [`Parameter`]; `None` for header and cookie parameters.
fn parameter_of(p: &Value) -> Option<Parameter> {
    let location = p.get("in")?.as_str()?;
    if location != "path" && location != "query" {
        return None;
    }
    Some(Parameter {
        name: p.get("name")?.as_str()?.to_owned(),
        location: location.to_owned(),
        required: location == "path" || p.get("required").and_then(Value::as_bool).unwrap_or(false),
        schema: p.get("schema").cloned().unwrap_or_else(|| serde_json::json!({"type": "string"})),
        description: p.get("description").and_then(Value::as_str).map(str::to_owned),
    })
}

/// A path template with its parameter names blanked: `/a/{x}/b` → `/a/{}/b`.
fn shape_of(path: &str) -> String {
    path.split('/').map(|s| if s.starts_with('{') && s.ends_with('}') { "{}" } else { s }).collect::<Vec<_>>().join("/")
}

/// The parameter names of a path template, in order.
pub fn placeholders(path: &str) -> Vec<String> {
    path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}'))).map(str::to_owned).collect()
}

/// A parameter as a property of a tool's input schema (its description kept).
pub fn parameter_property(p: &Parameter) -> Value {
    let mut schema = p.schema.clone();
    if let (Some(object), Some(description)) = (schema.as_object_mut(), &p.description) {
        object.entry("description").or_insert_with(|| Value::String(description.clone()));
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> OpenApi {
        OpenApi::parse(
            &json!({
                "openapi": "3.1.0",
                "paths": {
                    "/bid-jobs/{bid_job_id}/bids": {
                        "parameters": [{"$ref": "#/components/parameters/BidJobId"}],
                        "post": {
                            "summary": "Submit a bid",
                            "requestBody": {"$ref": "#/components/requestBodies/Bid"}
                        }
                    },
                    "/bid-jobs/by-tags": {"get": {"parameters": [
                        {"name": "tags", "in": "query", "required": true, "schema": {"type": "string"}},
                        {"name": "X-Trace", "in": "header", "schema": {"type": "string"}}
                    ]}}
                },
                "components": {
                    "parameters": {"BidJobId": {"name": "bid_job_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The job"}},
                    "requestBodies": {"Bid": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/BidRequest"}}}}},
                    "schemas": {
                        "BidRequest": {"type": "object", "required": ["bid_subject_id"], "properties": {
                            "bid_subject_id": {"type": "string"},
                            "bid_data": {"$ref": "#/components/schemas/Data", "description": "What is offered"},
                            "next": {"$ref": "#/components/schemas/BidRequest"}
                        }, "example": {"bid_subject_id": "a"}},
                        "Data": {"type": "object", "additionalProperties": true, "description": "Any"}
                    }
                }
            })
            .to_string(),
        )
        .unwrap()
    }

    #[test]
    fn an_operation_is_found_whatever_its_parameters_are_called() {
        let op = doc().operation("POST", "/bid-jobs/{job}/bids").unwrap();
        assert_eq!(op.path_parameters.len(), 1);
        assert_eq!((op.path_parameters[0].name.as_str(), op.path_parameters[0].description.as_deref()), ("bid_job_id", Some("The job")));
        assert_eq!(op.summary.as_deref(), Some("Submit a bid"));
        let tags = doc().operation("get", "/bid-jobs/by-tags").unwrap();
        assert_eq!(
            tags.query_parameters.iter().map(|p| (p.name.as_str(), p.required)).collect::<Vec<_>>(),
            [("tags", true)],
            "no header parameters"
        );
        assert_eq!(doc().operation("GET", "/nope").unwrap_err(), SchemaError::NoOperation { method: "GET".into(), path: "/nope".into() });
    }

    #[test]
    fn refs_are_resolved_inline_with_their_siblings_and_cycles_cut() {
        let body = doc().operation("POST", "/bid-jobs/{id}/bids").unwrap().body.unwrap();
        assert_eq!(body["required"], json!(["bid_subject_id"]));
        assert_eq!(
            body["properties"]["bid_data"],
            json!({"type": "object", "additionalProperties": true, "description": "What is offered"})
        );
        assert!(body.get("example").is_none(), "OpenAPI-only keywords are dropped");
        assert!(!body.to_string().contains("$ref"), "{body}");
        assert_eq!(body["properties"]["next"], json!({}), "a schema met again inside itself is left open");
    }

    #[test]
    fn the_embedded_document_parses() {
        OpenApi::embedded().expect("docs/openapi.json is JSON");
    }
}
