//! Streaming finds: the pages of the `Query` calls that serve a find, each read once the
//! stream has handed on the documents of the one before, so that a stream holds a page (1 MB of
//! items, DynamoDB's page size) per partition it reads, never the whole answer.
//!
//! * A GSI read (a field GSI's key or the collection GSI) is [`GSI_SHARDS`] partitions, each in
//!   insertion order: one stream per shard, merged by `seq` (each shard's next document is read
//!   ahead, the oldest of them is handed on).
//! * When nothing is left to the matcher, every item is a match, so the page's skip is stepped
//!   over on the items' `seq` alone (the same merge of the shards, reading only `seq`, which
//!   sends no documents): the reads of the page then start after the last skipped `seq`.
//! * The key and unique-marker paths read one document: as `find` does.
//!
//! The page's skip (where not stepped over) and limit are applied to the merged documents as
//! they come ([`Page::of_stream`]), so a full page stops the reads. No shard can give a page
//! more items than the page ends at, so each shard's `Query` asks for no more (its `Limit`):
//! a page of 10 reads at most 10 items of each shard, not a megabyte of each.
//!
//! [`GSI_SHARDS`]: crate::GSI_SHARDS

use crate::connection::Inner;
use crate::items::Item;
use crate::query::{self, Access, Fetch, Plan, Source};
use crate::table::{Collection, SEQ};
use agora_filter::Filter;
use agora_store::{DocStream, Json, Page, StoreError};
use aws_sdk_dynamodb::types::AttributeValue;
use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use std::sync::Arc;

/// What one partition yields, in `seq` order, with its `seq`.
type SeqStream<T> = BoxStream<'static, Result<(String, T), StoreError>>;

/// The `page` of the documents of `c` matching `plan`.
pub(crate) async fn find_stream(inner: Arc<Inner>, c: &Collection, plan: Plan, page: Page) -> Result<DocStream, StoreError> {
    if page.is_empty() {
        return Ok(stream::empty().boxed());
    }
    match &plan.access {
        Access::Nothing | Access::Key(_) | Access::Unique { .. } => Ok(page.of_vec(query::find(&inner, c, &plan).await?)),
        Access::Index { .. } | Access::Collection => {
            let sources = query::partitions(c, &plan.access);
            // With nothing left to the matcher, every item is a match: the skip is stepped over
            // on `seq` alone.
            let (after, page) = if plan.rest.is_all() && page.skip > 0 {
                match nth_seq(&inner, &sources, page.skip).await? {
                    Some(seq) => (Some(seq), page_after_skip(page)),
                    None => return Ok(stream::empty().boxed()),
                }
            } else {
                (None, page)
            };
            let size = page.end();
            let shards = sources
                .into_iter()
                .map(|source| partition(Arc::clone(&inner), c.clone(), source, plan.rest.clone(), after.clone(), size))
                .collect();
            Ok(page.of_stream(merge_by_seq(shards).map_ok(|(_, doc)| doc)))
        }
    }
}

/// The page once its skip is done.
fn page_after_skip(page: Page) -> Page {
    Page { skip: 0, limit: page.limit }
}

/// The `seq` of the `n`-th item (from 1) of `sources` merged in `seq` order; `None` when they
/// hold fewer.
async fn nth_seq(inner: &Arc<Inner>, sources: &[Source], n: u64) -> Result<Option<String>, StoreError> {
    // No shard holds more than `n` of the first `n`.
    let shards = sources.iter().map(|source| seqs(Arc::clone(inner), source.clone(), Some(n))).collect();
    let mut merged = merge_by_seq(shards).skip(usize::try_from(n - 1).unwrap_or(usize::MAX));
    merged.next().await.transpose().map(|found| found.map(|(seq, ())| seq))
}

/// The `seq` of every item of `source`, in order, read a page (of at most `size` items) at a time.
fn seqs(inner: Arc<Inner>, source: Source, size: Option<u64>) -> SeqStream<()> {
    stream::try_unfold((inner, source, None::<Item>, false), move |(inner, source, start, done)| async move {
        if done {
            return Ok(None);
        }
        let out = query::page(&inner, &source, start, Fetch::Seq, size, None).await?;
        let next = out.last_evaluated_key.filter(|key| !key.is_empty());
        let done = next.is_none();
        let page: Vec<Result<(String, ()), StoreError>> = out
            .items
            .unwrap_or_default()
            .into_iter()
            .filter_map(|mut item| match item.remove(SEQ) {
                Some(AttributeValue::S(seq)) => Some(Ok((seq, ()))),
                _ => None,
            })
            .collect();
        Ok(Some((stream::iter(page), (inner, source, next, done))))
    })
    .try_flatten()
    .boxed()
}

/// Where the read of one partition is.
struct Partition {
    inner: Arc<Inner>,
    c: Collection,
    source: Source,
    rest: Filter,
    /// Only the items after this `seq`.
    after: Option<String>,
    /// Most items of one `Query` page (DynamoDB's megabyte when `None`).
    size: Option<u64>,
    /// Where the next page starts (`None` with `started`: no more pages).
    start: Option<Item>,
    started: bool,
    /// The items of the current page not handed on yet.
    items: std::vec::IntoIter<Item>,
    done: bool,
}

/// The documents of `source` matching `rest` (after `seq` `after`, when given), in insertion
/// order, with their `seq`; read a page (of at most `size` items) at a time.
fn partition(inner: Arc<Inner>, c: Collection, source: Source, rest: Filter, after: Option<String>, size: Option<u64>) -> SeqStream<Json> {
    let state = Partition { inner, c, source, rest, after, size, start: None, started: false, items: Vec::new().into_iter(), done: false };
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
            let out = query::page(&self.inner, &self.source, self.start.take(), Fetch::Documents, self.size, self.after.as_deref()).await?;
            self.started = true;
            self.start = out.last_evaluated_key.filter(|key| !key.is_empty());
            self.items = out.items.unwrap_or_default().into_iter();
        }
    }
}

/// One shard's stream and what it has read ahead.
struct Shard<T> {
    docs: SeqStream<T>,
    head: Option<(String, T)>,
    ended: bool,
}

/// What `streams` yield (each in `seq` order), in `seq` order: the one merge of GSI shards.
fn merge_by_seq<T: Send + 'static>(streams: Vec<SeqStream<T>>) -> SeqStream<T> {
    let shards: Vec<Shard<T>> = streams.into_iter().map(|docs| Shard { docs, head: None, ended: false }).collect();
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
        let next = shards[oldest].head.take().expect("the oldest head");
        Some((Ok(next), (shards, false)))
    })
    .boxed()
}
