//! `mode: "lambda"`: a synchronous invoke (`RequestResponse`) of a function name or ARN with
//! the hook input as payload; the output is the function's JSON result. Also the transport of
//! the policy-runner Lambda when DSL modules run in AWS.
//!
//! The client is built on first use: region and credentials from the usual AWS chain; with
//! `AGORA_LAMBDA_ENDPOINT_URL` (a Lambda-API-compatible endpoint) the environment's
//! credentials when set, else fixed local ones.

use crate::config::HooksConfig;
use crate::truncate;
use agora_hooks::HookError;
use aws_sdk_lambda::error::{DisplayErrorContext, SdkError};
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::InvocationType;
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::OnceCell;

#[derive(Clone)]
pub struct LambdaInvoker {
    inner: Arc<Inner>,
}

struct Inner {
    region: Option<String>,
    endpoint_url: Option<String>,
    client: OnceCell<aws_sdk_lambda::Client>,
}

impl LambdaInvoker {
    pub fn new(config: &HooksConfig) -> Self {
        Self {
            inner: Arc::new(Inner {
                region: config.aws_region.clone(),
                endpoint_url: config.lambda_endpoint_url.clone(),
                client: OnceCell::new(),
            }),
        }
    }

    async fn client(&self) -> &aws_sdk_lambda::Client {
        self.inner
            .client
            .get_or_init(|| async {
                let sdk = agora_aws_config::load(self.inner.endpoint_url.as_deref(), self.inner.region.as_deref()).await;
                aws_sdk_lambda::Client::new(&sdk)
            })
            .await
    }

    /// Invokes `function` with `payload` and returns its JSON result.
    pub async fn invoke(&self, function: &str, payload: Vec<u8>) -> Result<Value, HookError> {
        let out = self
            .client()
            .await
            .invoke()
            .function_name(function)
            .invocation_type(InvocationType::RequestResponse)
            .payload(Blob::new(payload))
            .send()
            .await
            .map_err(|e| invoke_error(function, e))?;
        let body = out.payload().map(|b| b.as_ref()).unwrap_or_default();
        if let Some(kind) = out.function_error() {
            // The function raised: the payload describes the error.
            return Err(HookError::Rule(format!("lambda {function} failed ({kind}): {}", truncate(&String::from_utf8_lossy(body)))));
        }
        serde_json::from_slice(body).map_err(|e| {
            HookError::Malformed(format!(
                "lambda {function} returned a payload that is not JSON ({e}): {}",
                truncate(&String::from_utf8_lossy(body))
            ))
        })
    }
}

fn invoke_error(function: &str, e: SdkError<aws_sdk_lambda::operation::invoke::InvokeError>) -> HookError {
    let detail = format!("lambda {function}: {}", DisplayErrorContext(&e));
    match &e {
        SdkError::ServiceError(service) => HookError::Status { status: service.raw().status().as_u16(), body: truncate(&detail) },
        SdkError::ResponseError(response) => HookError::Malformed(format!("{detail} (HTTP {})", response.raw().status().as_u16())),
        _ => HookError::Unreachable(detail),
    }
}
