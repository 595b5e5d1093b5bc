//! Clients' WebSocket connections to an API Gateway WebSocket API, reached through its
//! `@connections` management API ([`ApiGatewayConnections`], the platform's
//! [`ConnectionGateway`]): how a function that did not accept a connection writes to it.

use crate::config::{required_env, truncate, ConfigError};
use agora_ports::{ConnectionGateway, GatewayError};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_apigatewaymanagement::config::http::HttpResponse;
use aws_sdk_apigatewaymanagement::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_apigatewaymanagement::primitives::Blob;

/// Environment variable: the `@connections` endpoint of the WebSocket API,
/// `https://{api-id}.execute-api.{region}.amazonaws.com/{stage}`.
pub const LIVE_ENDPOINT_ENV: &str = "AGORA_LIVE_ENDPOINT";

/// Reaches WebSocket connections through API Gateway's management API.
#[derive(Clone, Debug)]
pub struct ApiGatewayConnections {
    client: aws_sdk_apigatewaymanagement::Client,
}

impl ApiGatewayConnections {
    /// Connections of the API whose `@connections` endpoint is `endpoint`.
    pub fn new(sdk: &SdkConfig, endpoint: &str) -> Self {
        let config = aws_sdk_apigatewaymanagement::config::Builder::from(sdk).endpoint_url(endpoint).build();
        Self { client: aws_sdk_apigatewaymanagement::Client::from_conf(config) }
    }

    /// Connections of the API at `AGORA_LIVE_ENDPOINT` (required).
    pub fn from_env(sdk: &SdkConfig) -> Result<Self, ConfigError> {
        Ok(Self::new(sdk, &required_env(LIVE_ENDPOINT_ENV)?))
    }
}

#[async_trait]
impl crate::warm::Warm for ApiGatewayConnections {
    fn target(&self) -> String {
        "apigateway @connections".to_owned()
    }

    /// `GetConnection` of a connection id no client has: API Gateway answers 410 (Gone), the
    /// expected answer, over the connection the pushes reuse.
    async fn warm(&self) -> Result<(), String> {
        match self.client.get_connection().connection_id("agora-warm-up").send().await {
            Ok(_) => Ok(()),
            // No such connection (410), or an id the API does not take: answered all the same.
            Err(e) if e.raw_response().is_some_and(|r| matches!(r.status().as_u16(), 400 | 404 | 410)) => Ok(()),
            Err(e) => Err(truncate(&format!("GetConnection failed: {}", DisplayErrorContext(&e)), 500)),
        }
    }
}

/// `Gone` for API Gateway's 410 (the client has left), `Failed` with the detail otherwise.
fn gateway_error<E>(connection_id: &str, action: &str, e: SdkError<E, HttpResponse>) -> GatewayError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    let gone = e.as_service_error().and_then(|s| s.code()) == Some("GoneException")
        || e.raw_response().is_some_and(|r| r.status().as_u16() == 410);
    if gone {
        return GatewayError::Gone(connection_id.to_owned());
    }
    GatewayError::Failed {
        connection_id: connection_id.to_owned(),
        reason: truncate(&format!("{action} failed: {}", DisplayErrorContext(&e)), 2000),
    }
}

#[async_trait]
impl ConnectionGateway for ApiGatewayConnections {
    async fn send(&self, connection_id: &str, message: &str) -> Result<(), GatewayError> {
        self.client
            .post_to_connection()
            .connection_id(connection_id)
            .data(Blob::new(message.as_bytes()))
            .send()
            .await
            .map(drop)
            .map_err(|e| gateway_error(connection_id, "PostToConnection", e))
    }

    async fn close(&self, connection_id: &str) -> Result<(), GatewayError> {
        self.client
            .delete_connection()
            .connection_id(connection_id)
            .send()
            .await
            .map(drop)
            .map_err(|e| gateway_error(connection_id, "DeleteConnection", e))
    }
}
