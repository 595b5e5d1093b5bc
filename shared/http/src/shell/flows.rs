//! A service's HTTP flows: each is its own Lambda function on AWS, serving only its routes; the
//! local server serves them all.

use super::Service;
use axum::Router;

/// The flows of a service: each builds its routes over the service, without fallbacks.
pub trait Flows: Copy + 'static {
    /// The service whose flows these are.
    type Service;
    /// Every flow.
    const ALL: &'static [Self];
    /// The service's marker, whose shell answers the fallbacks.
    type Api: Service;

    /// This flow's routes over `service`, without fallbacks.
    fn routes(self, service: &Self::Service) -> Router;

    /// Every flow's routes, without fallbacks: for a server that mounts several services and
    /// sets the fallbacks once.
    fn all_routes(service: &Self::Service) -> Router {
        Self::ALL.iter().fold(Router::new(), |r, f| r.merge(f.routes(service)))
    }

    /// Every flow's routes with the service's fallbacks.
    fn router(service: &Self::Service) -> Router {
        <Self::Api as Service>::SHELL.with_fallbacks(Self::all_routes(service))
    }

    /// This flow's routes (its Lambda function), answering exactly as [`Flows::router`] does.
    fn router_of(self, service: &Self::Service) -> Router {
        <Self::Api as Service>::SHELL.with_fallbacks(self.routes(service))
    }
}
