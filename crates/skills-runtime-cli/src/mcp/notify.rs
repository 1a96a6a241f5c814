//! Change notifications: `notifications/resources/list_changed` and
//! `notifications/prompts/list_changed` to every client when the catalog's skills
//! change, by session (handshake era) or by subscription.

use std::time::Duration;

use rmcp::model::ErrorData;
use rmcp::service::SubscriptionContext;
use rmcp::{Peer, RoleServer};
use skills_runtime::{CatalogChange, CatalogEvent};
use tokio::sync::broadcast::{self, error::RecvError};

use super::server::SkillsServer;

impl SkillsServer {
    /// Sends `notifications/resources/list_changed` and
    /// `notifications/prompts/list_changed` to a handshake-era client on every catalog
    /// change, until the client is gone.
    pub(super) fn forward_changes(&self, peer: Peer<RoleServer>) {
        let mut events = self.inner.catalog.subscribe();
        tokio::spawn(async move {
            let mut check = tokio::time::interval(Duration::from_secs(30));
            loop {
                tokio::select! {
                    changed = next_list_change(&mut events) => {
                        if !changed
                            || peer.is_transport_closed()
                            || peer.notify_resource_list_changed().await.is_err()
                            || peer.notify_prompt_list_changed().await.is_err()
                        {
                            break;
                        }
                    }
                    _ = check.tick() => if peer.is_transport_closed() { break },
                }
            }
        });
    }

    pub(super) async fn listen_for_changes(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut events = self.inner.catalog.subscribe();
        let accepted = context.accepted();
        let resources = accepted.resources_list_changed == Some(true);
        let prompts = accepted.prompts_list_changed == Some(true);
        if !resources && !prompts {
            context.cancelled().await;
            return Ok(());
        }
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = next_list_change(&mut events) => {
                    let sink = context.sink();
                    let sent = changed
                        && (!resources || sink.notify_resource_list_changed().await.is_ok())
                        && (!prompts || sink.notify_prompt_list_changed().await.is_ok());
                    if !sent {
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// Waits for the next catalog event that changes a listing (a missed event counts as
/// one); `false` once the catalog is gone. Cancel-safe.
async fn next_list_change(events: &mut broadcast::Receiver<CatalogEvent>) -> bool {
    loop {
        match events.recv().await {
            Ok(event) if !lists_change(&event) => {}
            Ok(_) | Err(RecvError::Lagged(_)) => return true,
            Err(RecvError::Closed) => return false,
        }
    }
}

/// Whether an event changes what `resources/list`, `skills/list` or `prompts/list`
/// answers.
fn lists_change(event: &CatalogEvent) -> bool {
    event.changes.iter().any(|change| {
        matches!(
            change,
            CatalogChange::Added { .. } | CatalogChange::Removed { .. } | CatalogChange::Changed { .. }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_skill_changes_notify() {
        let event = |changes| CatalogEvent { version: 2, changes };
        assert!(lists_change(&event(vec![CatalogChange::Added { name: "a".into() }])));
        assert!(lists_change(&event(vec![CatalogChange::Changed { name: "a".into() }])));
        assert!(lists_change(&event(vec![CatalogChange::Removed { name: "a".into() }])));
        assert!(!lists_change(&event(vec![CatalogChange::KeptLastGood {
            name: "a".into(),
            reason: "broken".into()
        }])));
    }
}
