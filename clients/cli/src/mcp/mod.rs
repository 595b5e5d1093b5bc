//! `agora mcp`: Agora's calls as MCP tools ([`tools`]), their input schemas from the OpenAPI
//! document ([`schemas`]), served on stdio or, with `--listen`, over Streamable HTTP at `/mcp`.
//!
//! The tools act with the caller's token: on stdio, `--token` / `AGORA_TOKEN`; over HTTP, the
//! `Authorization` header of the MCP request, forwarded to the API as it came (none, none
//! forwarded: the server's own `--token` is never lent to an HTTP caller). So an agent acts as
//! itself only: the API answers 403 when a token's subject is not the voter or bidder.

pub mod schemas;
pub mod tools;

use crate::cli::McpArgs;
use crate::error::CliError;
use crate::http::Api;
use axum::http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::sync::Arc;
use tools::ToolEntry;

/// What the server tells clients about itself.
const INSTRUCTIONS: &str = "Agora: social choice voting, Orcade bidding and the Xchange task exchange. \
Find work with the find_* tools, read it with the get_* tools, then vote, bid or submit as your own subject id.";

/// The MCP server: the tools, and the API they call.
#[derive(Clone)]
pub struct AgoraMcp {
    api: Api,
    tools: Arc<Vec<ToolEntry>>,
}

impl AgoraMcp {
    pub fn new(api: Api) -> Result<AgoraMcp, CliError> {
        let openapi = schemas::OpenApi::embedded().map_err(|e| CliError::Mcp(e.to_string()))?;
        let tools = tools::catalogue(&openapi).map_err(|e| CliError::Mcp(e.to_string()))?;
        Ok(AgoraMcp { api, tools: Arc::new(tools) })
    }

    /// The API as this request's caller: over HTTP the request's own `Authorization` (or none),
    /// on stdio the server's token.
    fn api_for(&self, context: &RequestContext<RoleServer>) -> Api {
        match context.extensions.get::<Parts>() {
            Some(parts) => self.api.with_token(bearer(parts)),
            None => self.api.clone(),
        }
    }
}

/// The bearer token of an HTTP request's `Authorization` header.
fn bearer(parts: &Parts) -> Option<String> {
    let value = parts.headers.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
}

impl ServerHandler for AgoraMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("agora", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.iter().map(|t| t.tool.clone()).collect()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let Some(entry) = self.tools.iter().find(|t| t.name() == request.name) else {
            let known: Vec<&str> = self.tools.iter().map(ToolEntry::name).collect();
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "unknown tool {:?}; the tools are {}",
                request.name,
                known.join(", ")
            ))])
            .into());
        };
        let api = self.api_for(&context);
        Ok(entry.call(&api, request.arguments.unwrap_or_default()).await.into())
    }
}

/// Serves until the client leaves (stdio) or the process is stopped (HTTP).
pub async fn serve(api: Api, args: &McpArgs) -> Result<(), CliError> {
    let server = AgoraMcp::new(api)?;
    match args.listen {
        None => {
            let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| CliError::Mcp(e.to_string()))?;
            running.waiting().await.map_err(|e| CliError::Mcp(e.to_string()))?;
            Ok(())
        }
        Some(addr) => {
            let mut hosts = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
            hosts.extend(args.allow_host.iter().cloned());
            let config = StreamableHttpServerConfig::default().with_allowed_hosts(hosts);
            let service: StreamableHttpService<AgoraMcp, LocalSessionManager> =
                StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| CliError::Mcp(format!("cannot listen on {addr}: {e}")))?;
            let local = listener.local_addr().map_err(|e| CliError::Mcp(e.to_string()))?;
            eprintln!("agora mcp: Streamable HTTP at http://{local}/mcp");
            axum::serve(listener, router).await.map_err(|e| CliError::Mcp(e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(authorization: Option<&str>) -> Parts {
        let mut request = axum::http::Request::builder().uri("/mcp");
        if let Some(value) = authorization {
            request = request.header("authorization", value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn the_bearer_token_is_read_from_the_header() {
        assert_eq!(bearer(&parts(Some("Bearer abc.def"))), Some("abc.def".into()));
        assert_eq!(bearer(&parts(Some("bearer  abc"))), Some("abc".into()));
        assert_eq!(bearer(&parts(Some("Basic dXNlcg=="))), None);
        assert_eq!(bearer(&parts(None)), None);
    }
}
