//! Streaming finds: the pages of the `Query` calls that serve a find, each read once the
//! stream has handed on the documents of the one before, so that a stream holds a page (1 MB of
//! items, DynamoDB's page size) per partition it reads, never the whole answer.
//!
//! * A field GSI is one partition in insertion order: its pages in turn. When nothing is left to
//!   the matcher, the page's skip is stepped over with count-only queries (`Select::COUNT`,
//!   `Limit` the documents still to skip), which send no documents.
//! * The collection GSI is [`COLLECTION_SHARDS`] partitions: one stream per shard, merged by
//!   `seq` (each shard's next document is read ahead, the oldest of them is handed on).
//! * The key and unique-marker paths read one document: as `find` does.
//!
//! The page's skip (where not stepped over) and limit are applied to the merged documents as
//! they come ([`Page::of_stream`]), so a full page stops the reads.

use crate::connection::Inner;
use crate::items::Item;
use crate::query::{self, index_source, shard_source, Access, Plan, Source};
use crate::table::{Collection, COLLECTION_SHARDS};
use agora_filter::Filter;
use agora_store::{DocStream, Json, Page, StoreError};
use futures::stream::{self, BoxStream, StreamExt};
use std::sync::Arc;

/// Documents of one partition with their `seq`.
type SeqStream = BoxStream<'static, Result<(String, Json), StoreError>>;

/// The `page` of the documents of `c` matching `plan`.
pub(crate) async fn find_stream(inner: Arc<Inner>, c: &Collection, plan: Plan, page: Page) -> Result<DocStream, StoreError> {
    if page.is_empty() {
        return Ok(stream::empty().boxed());
    }
    match &plan.access {
        Access::Nothing | Access::Key(_) | Access::Unique { .. } => Ok(page.of_vec(query::find(&inner, c, &plan).await?)),
        Access::Index { slot, pk } => {
            let source = index_source(*slot, pk);
            // With nothing left to the matcher, every item is a match: the skip is counted over.
            let (skip, rest) = if plan.rest.is_all() { (page.skip, page_after_skip(page)) } else { (0, page) };
            let docs = partition(inner, c.clone(), source, plan.rest.clone(), skip).map(|doc| doc.map(|(_, doc)| doc));
            Ok(rest.of_stream(docs))
        }
        Access::Collection => {
            let shards =
                (0..COLLECTION_SHARDS).map(|shard| partition(Arc::clone(&inner), c.clone(), shard_source(c, shard), plan.rest.clone(), 0));
            Ok(page.of_stream(merge_by_seq(shards.collect())))
        }
    }
}

/// The page once its skip is done.
fn page_after_skip(page: Page) -> Page {
    Page { skip: 0, limit: page.limit }
}

/// Where the read of one partition is.
struct Partition {
    inner: Arc<Inner>,
    c: Collection,
    source: Source,
    rest: Filter,
    /// Items to step over before the first document (counted, not read).
    skip: u64,
    /// Where the next page starts (`None` with `started`: no more pages).
    start: Option<Item>,
    started: bool,
    /// The items of the current page not handed on yet.
    items: std::vec::IntoIter<Item>,
    done: bool,
}

/// The documents of `source` matching `rest`, in insertion order, with their `seq`, after
/// stepping over its first `skip` items; read a page at a time.
fn partition(inner: Arc<Inner>, c: Collection, source: Source, rest: Filter, skip: u64) -> SeqStream {
    let state = Partition { inner, c, source, rest, skip, start: None, started: false, items: Vec::new().into_iter(), done: false };
    stream::unfold(state, |mut p| async move {
        if p.done {
            return None;
        }
        match p.next().await {
            Ok(Some(doc)) => Some((Ok(doc), p)),
            Ok(None) => None,
            Err(e) => {
                p.done = true;
                Some((Err(e), p))
            }
        }
    })
    .boxed()
}

impl Partition {
    /// The next matching document, reading pages as needed.
    async fn next(&mut self) -> Result<Option<(String, Json)>, StoreError> {
        if !self.started && self.skip > 0 {
            self.step_over_skip().await?;
        }
        loop {
            if let Some(item) = self.items.next() {
                match query::document(&self.inner, &self.c, item, &self.rest).await? {
                    Some(doc) => return Ok(Some(doc)),
                    None => continue,
                }
            }
            if self.started && self.start.is_none() {
                return Ok(None);
            }
            let out = query::page(&self.inner, &self.source, self.start.take(), false, None).await?;
            self.started = true;
            self.start = out.last_evaluated_key.filter(|key| !key.is_empty());
            self.items = out.items.unwrap_or_default().into_iter();
        }
    }

    /// Steps over the first `skip` items with count-only pages.
    async fn step_over_skip(&mut self) -> Result<(), StoreError> {
        while self.skip > 0 {
            let out = query::page(&self.inner, &self.source, self.start.take(), true, Some(self.skip)).await?;
            self.started = true;
            self.skip = self.skip.saturating_sub(u64::try_from(out.count).unwrap_or(0));
            self.start = out.last_evaluated_key.filter(|key| !key.is_empty());
            if self.start.is_none() {
                // The partition ends within the skip.
                self.skip = 0;
            }
        }
        Ok(())
    }
}

/// One shard's stream and the document it has read ahead.
struct Shard {
    docs: SeqStream,
    head: Option<(String, Json)>,
    ended: bool,
}

/// The documents of `streams` (each in `seq` order) in `seq` order.
fn merge_by_seq(streams: Vec<SeqStream>) -> DocStream {
    let shards: Vec<Shard> = streams.into_iter().map(|docs| Shard { docs, head: None, ended: false }).collect();
    stream::unfold((shards, false), |(mut shards, failed)| async move {
        if failed {
            return None;
        }
        // Read ahead on every shard whose next document is not known yet, at once.
        let pulls = shards.iter_mut().filter(|s| s.head.is_none() && !s.ended).map(|s| async move {
            match s.docs.next().await {
                Some(Ok(doc)) => s.head = Some(doc),
                Some(Err(e)) => return Err(e),
                None => s.ended = true,
            }
            Ok(())
        });
        if let Err(e) = futures::future::try_join_all(pulls).await {
            return Some((Err(e), (shards, true)));
        }
        let oldest = shards.iter().enumerate().filter_map(|(i, s)| s.head.as_ref().map(|(seq, _)| (i, seq))).min_by(|a, b| a.1.cmp(b.1))?.0;
        let (_, doc) = shards[oldest].head.take().expect("the oldest head");
        Some((Ok(doc), (shards, false)))
    })
    .boxed()
}
