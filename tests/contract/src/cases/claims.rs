//! The platform's leased once-only claims ([`agora_store::claims`]) on the store: won once among
//! concurrent claimers, held until the lease runs out, taken over after, released and taken
//! again, and independent between databases.

use crate::check::*;
use crate::spec::{CLAIMS, SECOND_DB};
use crate::{Opener, SharedStore, CONTRACT_DB};
use agora_store::claims::{instance, Claim, ClaimState, Claims};
use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::json;
use std::sync::Arc;

/// 10:mm:ss.250000 on the day of the examples (datetimes are stored with their microseconds).
fn at(minute: u32, second: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, 22, 10, minute, second).single().expect("a valid time") + Duration::microseconds(250_000)
}

fn lease(minutes: i64) -> Option<Duration> {
    Some(Duration::minutes(minutes))
}

/// 50 claimers of one key at once: exactly one wins, and the claim is stored as written.
pub async fn claims_won_once_under_race(store: SharedStore) {
    let claims = Claims::new(Arc::clone(&store));
    let results = crate::cases::race(|_| {
        let claims = claims.clone();
        async move { claims.claim("evaluate:task_x", at(0, 0), lease(5)).await }
    })
    .await;
    let won = results.iter().filter(|r| **r == Ok(Claim::Won)).count();
    assert_eq!(won, 1, "exactly one claimer wins: {results:?}");
    assert!(results.iter().all(|r| matches!(r, Ok(Claim::Won | Claim::Held))), "{results:?}");
    let mut stored = get_value(&store, CLAIMS, "evaluate:task_x").await.expect("stored");
    let holder = stored["holder"].take();
    assert!(holder.as_str().is_some_and(|h| h.len() == 32), "a holder token: {holder}");
    assert_eq!(
        stored,
        json!({"claim_id": "evaluate:task_x", "claimed_at": "2026-10-22T10:00:00.250000", "expires_at": "2026-10-22T10:05:00.250000", "holder": null, "instance": instance()})
    );
    assert_eq!(keys(&stored), ["claim_id", "claimed_at", "expires_at", "holder", "instance"]);
    assert!(claims.held("evaluate:task_x").await.expect("held"));
}

/// A claim is held until its lease has run out (`expires_at < now`), then taken over by exactly
/// one of the claimers racing for it; a claim without a lease never expires.
pub async fn claims_held_until_the_lease_expires(store: SharedStore) {
    let claims = Claims::new(Arc::clone(&store));
    assert_eq!(claims.claim("start:task_a", at(0, 0), lease(5)).await.expect("claim"), Claim::Won);
    assert_eq!(claims.claim("start:task_a", at(1, 0), lease(5)).await.expect("claim"), Claim::Held);
    assert_eq!(claims.claim("start:task_a", at(5, 0), lease(5)).await.expect("claim"), Claim::Held, "expiring now is not expired");
    let late = at(5, 1);
    let results = crate::cases::race(|_| {
        let claims = claims.clone();
        async move { claims.claim("start:task_a", late, lease(5)).await }
    })
    .await;
    assert_eq!(results.iter().filter(|r| **r == Ok(Claim::Won)).count(), 1, "one claimer takes the expired claim over: {results:?}");
    let mut stored = get_value(&store, CLAIMS, "start:task_a").await.expect("stored");
    stored["holder"].take();
    assert_eq!(
        stored,
        json!({"claim_id": "start:task_a", "claimed_at": "2026-10-22T10:05:01.250000", "expires_at": "2026-10-22T10:10:01.250000", "holder": null, "instance": instance()})
    );

    assert_eq!(claims.claim("trigger:task_a", at(0, 0), None).await.expect("claim"), Claim::Won);
    assert_eq!(get_value(&store, CLAIMS, "trigger:task_a").await.expect("stored")["expires_at"], json!(null));
    let much_later = at(0, 0) + Duration::days(400);
    assert_eq!(claims.claim("trigger:task_a", much_later, lease(5)).await.expect("claim"), Claim::Held, "no lease never expires");
    assert!(!claims.held("trigger:task_b").await.expect("held"));
}

/// A claim is live while `claim` would find it held: until its lease has run out, for ever
/// without one; an absent claim is not live.
pub async fn claims_live_until_the_lease_expires(store: SharedStore) {
    let claims = Claims::new(Arc::clone(&store));
    assert!(!claims.live("evaluate:task_l", at(0, 0)).await.expect("live"));
    assert_eq!(claims.claim("evaluate:task_l", at(0, 0), lease(5)).await.expect("claim"), Claim::Won);
    assert!(claims.live("evaluate:task_l", at(4, 59)).await.expect("live"));
    assert!(claims.live("evaluate:task_l", at(5, 0)).await.expect("live"), "expiring now is not expired");
    assert!(!claims.live("evaluate:task_l", at(5, 1)).await.expect("live"));
    assert!(claims.held("evaluate:task_l").await.expect("held"), "expired is still held");
    assert_eq!(claims.claim("trigger:task_l", at(0, 0), None).await.expect("claim"), Claim::Won);
    assert!(claims.live("trigger:task_l", at(0, 0) + Duration::days(400)).await.expect("live"));
}

/// A released claim is gone and can be taken again; releasing nothing answers `false`.
pub async fn claims_release_then_reclaim(store: SharedStore) {
    let claims = Claims::new(Arc::clone(&store));
    assert_eq!(claims.claim("evaluate:task_r", at(0, 0), None).await.expect("claim"), Claim::Won);
    assert!(claims.release("evaluate:task_r").await.expect("release"));
    assert!(!claims.held("evaluate:task_r").await.expect("held"));
    assert!(!claims.release("evaluate:task_r").await.expect("release again"));
    assert_eq!(claims.claim("evaluate:task_r", at(1, 0), lease(1)).await.expect("claim"), Claim::Won);
    assert_eq!(claims.claim("evaluate:task_r", at(1, 30), lease(1)).await.expect("claim"), Claim::Held);
    assert_eq!(count(&store, CLAIMS, json!({}), None).await, 1);
}

/// The same claim key in two databases: two claims, each released on its own.
pub async fn claims_of_two_databases_are_independent(open: Opener) {
    let first = Claims::new(open.open(CONTRACT_DB).await);
    let second = Claims::new(open.open(CONTRACT_DB.named(SECOND_DB)).await);
    assert_eq!(first.claim("start:job_1", at(0, 0), lease(5)).await.expect("claim"), Claim::Won);
    assert!(!second.held("start:job_1").await.expect("held"));
    assert_eq!(second.claim("start:job_1", at(0, 0), lease(5)).await.expect("claim"), Claim::Won);
    assert_eq!(first.claim("start:job_1", at(1, 0), lease(5)).await.expect("claim"), Claim::Held);
    assert!(first.release("start:job_1").await.expect("release"));
    assert!(second.held("start:job_1").await.expect("held"));
    assert_eq!(second.claim("start:job_1", at(1, 0), lease(5)).await.expect("claim"), Claim::Held);
}

/// A holder renews its lease while it works; once the lease has run out and another took the
/// claim over, the first holder's renewal fails. A settled claim never expires.
pub async fn claims_renewed_by_their_holder_and_settled(store: SharedStore) {
    let claims = Claims::new(Arc::clone(&store));
    assert_eq!(claims.state("evaluate:task_r", at(0, 0)).await.unwrap(), ClaimState::Free);
    let first = claims.take("evaluate:task_r", at(0, 0), lease(1)).await.unwrap().expect("won");
    assert_eq!(claims.take("evaluate:task_r", at(0, 30), lease(1)).await.unwrap(), None, "held");
    assert_eq!(claims.state("evaluate:task_r", at(0, 30)).await.unwrap(), ClaimState::Live);
    // Renewed at 0:50 for a minute: still live at 1:30, when the first lease would have run out.
    assert!(claims.renew(&first, at(0, 50), Duration::minutes(1)).await.unwrap());
    assert_eq!(claims.state("evaluate:task_r", at(1, 30)).await.unwrap(), ClaimState::Live);
    assert_eq!(claims.take("evaluate:task_r", at(1, 30), lease(1)).await.unwrap(), None);
    // Not renewed again: expired at 2:00, and taken over.
    assert_eq!(claims.state("evaluate:task_r", at(2, 0)).await.unwrap(), ClaimState::Expired);
    let second = claims.take("evaluate:task_r", at(2, 0), lease(1)).await.unwrap().expect("taken over");
    assert!(!claims.renew(&first, at(2, 1), Duration::minutes(1)).await.unwrap(), "the first holder lost it");
    assert!(claims.renew(&second, at(2, 1), Duration::minutes(1)).await.unwrap());
    // Settled for an hour at 2:01: live, never taken over, until 3:01.
    assert!(claims.settle("evaluate:task_r", at(2, 1), Duration::hours(1)).await.unwrap());
    assert_eq!(claims.state("evaluate:task_r", at(59, 0)).await.unwrap(), ClaimState::Live);
    assert!(claims.live("evaluate:task_r", at(59, 0)).await.unwrap());
    assert_eq!(claims.take("evaluate:task_r", at(59, 0), lease(1)).await.unwrap(), None);
    assert!(!claims.settle("evaluate:task_none", at(2, 1), Duration::hours(1)).await.unwrap(), "nothing to settle");
    // A claim without a lease is settled for ever.
    claims.claim("start:task_s", at(0, 0), None).await.unwrap();
    assert_eq!(claims.state("start:task_s", at(59, 0)).await.unwrap(), ClaimState::Settled);
    assert!(claims.release("evaluate:task_r").await.unwrap());
    assert!(!claims.renew(&second, at(59, 0), Duration::minutes(1)).await.unwrap(), "released");
    assert_eq!(claims.state("evaluate:task_r", at(59, 0)).await.unwrap(), ClaimState::Free);
}

/// The live leases of a gone instance (this process plays it) run out at once, found by the
/// `$in` and `$gte` of their filter on the store's own query: settled claims, claims without a
/// lease, leases run out already and other instances' claims are left as they are.
pub async fn claims_of_a_gone_instance_run_out(store: SharedStore) {
    let claims = Claims::new(Arc::clone(&store));
    claims.take("evaluate:task_g", at(0, 0), lease(5)).await.unwrap().expect("won");
    claims.take("trigger:task_g", at(0, 0), lease(5)).await.unwrap().expect("won");
    assert!(claims.settle("trigger:task_g", at(0, 0), Duration::days(1)).await.unwrap());
    assert_eq!(get_value(&store, CLAIMS, "trigger:task_g").await.expect("stored")["instance"], json!(null));
    claims.take("start:task_g", at(0, 0), None).await.unwrap().expect("won");
    claims.take("deliver:task_g", at(0, 0), lease(1)).await.unwrap().expect("won");
    let other = json!({"claim_id": "evaluate:task_o", "claimed_at": "2026-10-22T10:00:00.250000", "expires_at": "2026-10-22T10:05:00.250000", "holder": "h", "instance": "another"});
    store.insert(vec![(CLAIMS, agora_store::to_json(&other))]).await.expect("insert");

    let now = at(2, 0);
    let ended = claims.run_out_instances(&["gone".into(), instance().to_owned()], now).await.expect("run out");
    assert_eq!(ended, ["evaluate:task_g"]);
    assert_eq!(claims.state("evaluate:task_g", now).await.unwrap(), ClaimState::Expired);
    assert_eq!(claims.state("trigger:task_g", now).await.unwrap(), ClaimState::Live);
    assert_eq!(claims.state("start:task_g", now).await.unwrap(), ClaimState::Settled);
    assert_eq!(claims.state("deliver:task_g", now).await.unwrap(), ClaimState::Expired);
    assert_eq!(claims.state("evaluate:task_o", now).await.unwrap(), ClaimState::Live);
    assert_eq!(claims.take("evaluate:task_g", now, lease(5)).await.unwrap().map(|l| l.key), Some("evaluate:task_g".to_owned()));
    assert!(claims.run_out_instances(&[], now).await.expect("nothing").is_empty());
}
