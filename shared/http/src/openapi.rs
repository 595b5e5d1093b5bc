//! The OpenAPI schemas of what the platform writes for every service (feature `openapi`), so that
//! each service's document describes its answers with the platform's own shapes (the platform
//! knows no service: a service names its data schema, the platform wraps it):
//!
//! * [`enveloped!`](crate::enveloped): a schema `{"ok": true, "data": ...}` ([`crate::envelope`])
//!   around one document or an array of them, declared by the service;
//! * [`BareError`] and [`EnvelopedError`]: the two [`ErrorShape`](crate::shell::ErrorShape)s,
//!   `{"error": "..."}` and `{"ok": false, "error": "..."}`;
//! * [`Refusals`]: the answers the shell may give on every route, before or instead of its
//!   handler (401, 405, 413, 414, 431, 500), in a service's error shape;
//! * [`BearerAuth`]: the `bearerAuth` security scheme (a JWT in `Authorization: Bearer`), added
//!   to a document's components by [`utoipa::Modify`].

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::marker::PhantomData;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::ContentBuilder;
use utoipa::openapi::{OpenApi, Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// The name of the bearer security scheme in `components.securitySchemes`.
pub const BEARER_AUTH: &str = "bearerAuth";

/// `{"type": "boolean", "enum": [value]}`: the envelope's `ok`.
fn boolean_of(value: bool) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::Boolean).enum_values(Some([value]))
}

/// The envelope `{"ok": true, "data": <data>}`, nothing else in it.
pub fn envelope_of(data: impl Into<RefOr<Schema>>) -> RefOr<Schema> {
    ObjectBuilder::new()
        .property("ok", boolean_of(true))
        .property("data", data)
        .required("ok")
        .required("data")
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .into()
}

/// The envelope around one `T`, by reference.
pub fn envelope_one<T: ToSchema>() -> RefOr<Schema> {
    envelope_of(Ref::from_schema_name(T::name()))
}

/// The envelope around an array of `T`, by reference: a list answer ([`crate::envelope::ok_list`]).
pub fn envelope_list<T: ToSchema>() -> RefOr<Schema> {
    envelope_of(ArrayBuilder::new().items(Ref::from_schema_name(T::name())))
}

/// `T` and the schemas it refers to, for an envelope's [`ToSchema::schemas`].
pub fn collect<T: ToSchema>(schemas: &mut Vec<(String, RefOr<Schema>)>) {
    schemas.push((T::name().into_owned(), T::schema()));
    T::schemas(schemas);
}

/// Declares `$name`, the schema of `{"ok": true, "data": <$data>}` (or, with `[$data]`, of
/// `{"ok": true, "data": [<$data>, ...]}`), named `$name` in the document: a service names the
/// envelopes its routes answer with (`body = EnvelopedBidJob`).
#[macro_export]
macro_rules! enveloped {
    ($(#[$doc:meta])* $vis:vis $name:ident, [$data:ty]) => {
        $crate::enveloped!(@declare $(#[$doc])* $vis $name, $data, $crate::openapi::envelope_list::<$data>());
    };
    ($(#[$doc:meta])* $vis:vis $name:ident, $data:ty) => {
        $crate::enveloped!(@declare $(#[$doc])* $vis $name, $data, $crate::openapi::envelope_one::<$data>());
    };
    (@declare $(#[$doc:meta])* $vis:vis $name:ident, $data:ty, $schema:expr) => {
        $(#[$doc])*
        $vis struct $name;

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                $schema
            }
        }

        impl utoipa::ToSchema for $name {
            fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
                $crate::openapi::collect::<$data>(schemas);
            }
        }
    };
}

/// `{"error": "<message>"}` ([`Bare`](crate::shell::Bare)).
pub struct BareError;

impl PartialSchema for BareError {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .description(Some("An error: what was wrong, and for a field which one."))
            .property("error", ObjectBuilder::new().schema_type(Type::String))
            .required("error")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .into()
    }
}

impl ToSchema for BareError {
    fn name() -> Cow<'static, str> {
        "Error".into()
    }
}

/// `{"ok": false, "error": "<message>"}` ([`Envelope`](crate::shell::Envelope)).
pub struct EnvelopedError;

impl PartialSchema for EnvelopedError {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .description(Some("An error in the envelope: what was wrong, and for a field which one."))
            .property("ok", boolean_of(false))
            .property("error", ObjectBuilder::new().schema_type(Type::String))
            .required("ok")
            .required("error")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .into()
    }
}

impl ToSchema for EnvelopedError {
    fn name() -> Cow<'static, str> {
        "EnvelopedError".into()
    }
}

/// The answers of the shell on every route of a service whose errors read `E` ([`BareError`] or
/// [`EnvelopedError`]): the caller refused by the front door (401, authentication on), a method
/// the path does not take (405), a body over the limit (413), a head over the limits (414, 431),
/// and an internal error (500, `Internal server error`).
pub struct Refusals<E>(PhantomData<E>);

/// The statuses of [`Refusals`], each with its description.
pub const REFUSALS: [(u16, &str); 6] = [
    (401, "The bearer token is missing or invalid (only when the server's authentication is on)."),
    (405, "The path does not take this method."),
    (413, "The request body is over the limit."),
    (414, "The request URI is over the limit."),
    (431, "The request headers are over the limits."),
    (500, "Internal server error (the cause is logged, never shown)."),
];

/// An answer of `description` whose JSON body is `E`'s schema, by reference.
pub fn error_response<E: ToSchema>(description: &str) -> Response {
    let content = ContentBuilder::new().schema(Some(Ref::from_schema_name(E::name()))).build();
    ResponseBuilder::new().description(description).content("application/json", content).build()
}

impl<E: ToSchema> utoipa::IntoResponses for Refusals<E> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        REFUSALS.iter().map(|(status, description)| (status.to_string(), error_response::<E>(description).into())).collect()
    }
}

/// `document`'s operation ids prefixed with `prefix` and `_` (`voting_submit_task`): utoipa names
/// an operation after its handler, and two services' handlers may share a name, which a merged
/// document may not.
pub fn prefix_operation_ids(document: &mut OpenApi, prefix: &str) {
    for item in document.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
        ];
        for operation in operations.into_iter().flatten() {
            if let Some(id) = operation.operation_id.as_mut() {
                id.insert_str(0, &format!("{prefix}_"));
            }
        }
    }
}

/// A query route's body: a MongoDB-style filter (`agora_filter`: `$eq $ne $gt $gte $lt $lte $in
/// $nin $exists $and $or $not`, dotted paths); `{}` or no body: every document.
pub struct Filter;

impl PartialSchema for Filter {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().description(Some("A MongoDB-style filter; `{}` or no body: every document.")).into()
    }
}

impl ToSchema for Filter {}

/// A PATCH route's body: the raw `$set` (`agora_store::Change`), fields or dotted paths and the
/// values to set, at least one. Which fields a route lets set is the route's own description.
pub struct Patch;

impl PartialSchema for Patch {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .min_properties(Some(1))
            .description(Some("Fields or dotted paths and the values to set (the raw `$set`)."))
            .into()
    }
}

impl ToSchema for Patch {}

/// The JSON Schema (2020-12) of `document`'s component `name`, with the document's components
/// beside it so that its `#/components/schemas/...` references resolve: what a validator
/// compiles to check a body against the document.
pub fn component_schema(document: &OpenApi, name: &str) -> serde_json::Value {
    let document = serde_json::to_value(document).expect("an OpenAPI document serializes");
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": document["components"],
    })
}

/// The bearer scheme: `Authorization: Bearer <JWT>`, checked when the server's authentication is
/// on.
pub fn bearer_scheme() -> SecurityScheme {
    SecurityScheme::Http(
        HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .bearer_format("JWT")
            .description(Some("A JWT, checked when the server's authentication is on (it is off by default)."))
            .build(),
    )
}

/// Adds [`bearer_scheme`] to a document's components as [`BEARER_AUTH`]
/// (`#[openapi(modifiers(&BearerAuth))]`).
pub struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut OpenApi) {
        openapi.components.get_or_insert_with(Default::default).add_security_scheme(BEARER_AUTH, bearer_scheme());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    struct Thing;
    impl PartialSchema for Thing {
        fn schema() -> RefOr<Schema> {
            ObjectBuilder::new().schema_type(Type::Object).into()
        }
    }
    impl ToSchema for Thing {
        fn name() -> Cow<'static, str> {
            "Thing".into()
        }
    }

    fn json_of(schema: RefOr<Schema>) -> Value {
        serde_json::to_value(schema).unwrap()
    }

    crate::enveloped!(EnvelopedThing, Thing);
    crate::enveloped!(EnvelopedThings, [Thing]);

    #[test]
    fn the_envelope_holds_ok_true_and_the_data_by_reference() {
        assert_eq!(
            json_of(EnvelopedThing::schema()),
            json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean", "enum": [true]}, "data": {"$ref": "#/components/schemas/Thing"}},
                "required": ["ok", "data"],
                "additionalProperties": false
            })
        );
        assert_eq!(json_of(EnvelopedThings::schema())["properties"]["data"]["items"], json!({"$ref": "#/components/schemas/Thing"}));
        assert_eq!(EnvelopedThings::name(), "EnvelopedThings");
        let mut schemas = Vec::new();
        EnvelopedThings::schemas(&mut schemas);
        assert_eq!(schemas.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["Thing"]);
    }

    #[test]
    fn the_error_shapes_are_the_bodies_the_shell_writes() {
        use crate::shell::{Bare, Envelope, ErrorShape};
        let bare = json_of(BareError::schema());
        assert_eq!(bare["required"], json!(["error"]));
        assert_eq!(bare["additionalProperties"], json!(false));
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&bare["properties"]), keys(&Bare::body("x")));
        let enveloped = json_of(EnvelopedError::schema());
        assert_eq!(enveloped["properties"]["ok"]["enum"], json!([false]));
        let mut written = keys(&Envelope::body("x"));
        written.sort();
        let mut described = keys(&enveloped["properties"]);
        described.sort();
        assert_eq!(described, written);
    }

    #[test]
    fn the_refusals_of_the_shell_are_in_the_services_error_shape() {
        let responses = <Refusals<EnvelopedError> as utoipa::IntoResponses>::responses();
        assert_eq!(responses.keys().map(String::as_str).collect::<Vec<_>>(), ["401", "405", "413", "414", "431", "500"]);
        let answer = serde_json::to_value(&responses["413"]).unwrap();
        assert_eq!(answer["content"]["application/json"]["schema"], json!({"$ref": "#/components/schemas/EnvelopedError"}));
    }

    #[test]
    fn operation_ids_are_prefixed() {
        let operation = utoipa::openapi::path::OperationBuilder::new().operation_id(Some("submit_task")).build();
        let paths = utoipa::openapi::PathsBuilder::new()
            .path("/tasks", utoipa::openapi::PathItem::new(utoipa::openapi::HttpMethod::Post, operation));
        let mut document = utoipa::openapi::OpenApiBuilder::new().paths(paths).build();
        prefix_operation_ids(&mut document, "xchange");
        let id = document.paths.paths["/tasks"].post.as_ref().and_then(|o| o.operation_id.as_deref());
        assert_eq!(id, Some("xchange_submit_task"));
    }

    #[test]
    fn the_bearer_scheme_is_a_jwt_in_the_authorization_header() {
        let mut document = OpenApi::default();
        utoipa::Modify::modify(&BearerAuth, &mut document);
        let scheme = serde_json::to_value(&document.components.unwrap().security_schemes[BEARER_AUTH]).unwrap();
        assert_eq!(scheme["type"], "http");
        assert_eq!(scheme["scheme"], "bearer");
        assert_eq!(scheme["bearerFormat"], "JWT");
    }
}
