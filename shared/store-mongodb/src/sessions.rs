//! Ending the transactions a killed process left open.
//!
//! A process killed (`kill -9`, a crash, a lost machine) inside a multi-document transaction
//! leaves that transaction open on the server: MongoDB ties a transaction to a logical session,
//! not to a connection, so the closed connection ends nothing, and the server aborts the
//! transaction only once it has been open for its transaction lifetime
//! (`transactionLifetimeLimitSeconds`, 60 s by default). Until then the documents it wrote stay
//! locked: every later transaction writing one of them (the counter of a bid job, `bids:<job>`,
//! which every bid's transaction raises; a voting task's count) meets a write conflict, and
//! the store retries it until its retry time runs out.
//!
//! [`end_abandoned_transactions`] is the way out a restart takes: before the restarted process
//! does any work of its own, it kills the sessions of the user it connects as
//! (`killAllSessions`), which aborts their transactions at once. It is meant for a process that
//! is the only one working under its user (the local server), never for one of which other
//! instances run at the same time (the Lambda functions): the kill would abort their live
//! transactions and cursors too. Those rely on the deployment's transaction lifetime, lowered
//! to a few seconds (Atlas: the cluster's advanced configuration).

use crate::deployment::MongoDeployment;
use crate::error::backend;
use agora_store::StoreError;
use bson::{doc, Bson, Document};
use mongodb::error::{Error, ErrorKind};
use mongodb::Client;

/// Codes meaning the deployment will not run `killAllSessions` for this user: Unauthorized
/// (no `killAnySession` privilege), CommandNotFound and CommandNotSupported (a server that does
/// not implement it), and Atlas's refusal of a command its tier does not allow (AtlasError).
const REFUSALS: [i32; 4] = [13, 59, 115, 8000];

/// Interrupted: the kill reached the command's own session (the driver sends every command in
/// a session) after it had aborted the others' transactions.
const INTERRUPTED: i32 = 11601;

/// Ends the transactions that a predecessor of this process, killed inside them, left open: kills
/// every session of the user the client connects as (`killAllSessions: [{user, db}]`, the user
/// as `connectionStatus` reports it, so that any authentication mechanism works; every session
/// when the client is not authenticated, `killAllSessions: []`), which aborts their open
/// transactions, kills their cursors and interrupts their running operations.
///
/// Call it once at start-up, before the process's own work starts (it would abort that too),
/// and only from a process that is the one user of those sessions: the local server, never the
/// Lambda functions, of which several instances run at once under one user (the kill would
/// abort the live transactions and cursors of the others; on Lambda an abandoned transaction
/// ends with the deployment's transaction lifetime, to be lowered to a few seconds). A deployment that refuses the command (a user without the `killAnySession`
/// privilege, a server without the command) is logged as a warning and is no error: the
/// abandoned transactions then end with the server's transaction lifetime. Other failures
/// (the server unreachable) are [`StoreError::Backend`].
pub async fn end_abandoned_transactions(client: &Client) -> Result<(), StoreError> {
    let admin = client.database("admin");
    let status = admin.run_command(doc! {"connectionStatus": 1}).await.map_err(|e| backend("connectionStatus", &e))?;
    let users = authenticated_users(&status);
    let whose = if users.is_empty() { "every user".to_owned() } else { names(&users) };
    match admin.run_command(doc! {"killAllSessions": users}).await {
        Ok(_) => {
            tracing::info!(sessions_of = %whose, "ended the sessions (and open transactions) a previous run may have left");
            Ok(())
        }
        Err(e) if command_code(&e) == Some(INTERRUPTED) => {
            tracing::info!(sessions_of = %whose, "ended the sessions (and open transactions) a previous run may have left");
            Ok(())
        }
        Err(e) if command_code(&e).is_some_and(|code| REFUSALS.contains(&code)) => {
            tracing::warn!(
                sessions_of = %whose,
                error = %e,
                "the deployment refused killAllSessions: transactions a killed run left open end only with the server's \
                 transaction lifetime (transactionLifetimeLimitSeconds), and block writers of their documents until then"
            );
            Ok(())
        }
        Err(e) => Err(backend("killAllSessions", &e)),
    }
}

impl MongoDeployment {
    /// [`end_abandoned_transactions`] on this deployment's client: for the local server's
    /// start-up only (see there).
    pub async fn end_abandoned_transactions(&self) -> Result<(), StoreError> {
        end_abandoned_transactions(self.client()).await
    }
}

/// The users a `connectionStatus` reply says the connection is authenticated as, as
/// `killAllSessions` takes them (`[{user, db}]`); empty when it is not authenticated.
fn authenticated_users(status: &Document) -> Vec<Bson> {
    let users = status.get_document("authInfo").ok().and_then(|info| info.get_array("authenticatedUsers").ok());
    users
        .into_iter()
        .flatten()
        .filter_map(Bson::as_document)
        .filter_map(|u| Some(Bson::Document(doc! {"user": u.get_str("user").ok()?, "db": u.get_str("db").ok()?})))
        .collect()
}

/// `user@db, ...` for the log.
fn names(users: &[Bson]) -> String {
    let name = |u: &Document| format!("{}@{}", u.get_str("user").unwrap_or("?"), u.get_str("db").unwrap_or("?"));
    users.iter().filter_map(Bson::as_document).map(name).collect::<Vec<_>>().join(", ")
}

/// The server's error code when the command failed on the server.
fn command_code(e: &Error) -> Option<i32> {
    match e.kind.as_ref() {
        ErrorKind::Command(c) => Some(c.code),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_to_kill_are_those_connection_status_names() {
        let status = doc! {"authInfo": {"authenticatedUsers": [{"user": "agora", "db": "admin"}, {"user": "x509", "db": "$external"}], "authenticatedUserRoles": []}, "ok": 1.0};
        assert_eq!(
            authenticated_users(&status),
            vec![Bson::Document(doc! {"user": "agora", "db": "admin"}), Bson::Document(doc! {"user": "x509", "db": "$external"})]
        );
        assert_eq!(names(&authenticated_users(&status)), "agora@admin, x509@$external");
    }

    #[test]
    fn an_unauthenticated_connection_kills_every_session() {
        assert!(authenticated_users(&doc! {"authInfo": {"authenticatedUsers": []}, "ok": 1.0}).is_empty());
        assert!(authenticated_users(&doc! {"ok": 1.0}).is_empty());
    }
}
