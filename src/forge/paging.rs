//! Paging as GitHub and GitLab both do it: `Link: rel="next"` (RFC 8288) names the next
//! page, and guildctl reads at most [`MAX_PAGES`] of a listing.

use std::future::Future;

use super::tracker::Page;

/// At 100 items a page, enough for any pull or merge request's comments, open labelled
/// issues or plan runs.
pub const MAX_PAGES: usize = 50;

/// The `rel="next"` URL of a `Link` header.
pub fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|p| matches!(p.trim(), "rel=\"next\"" | "rel=next"));
        let url = url.trim().strip_prefix('<')?.strip_suffix('>')?;
        is_next.then(|| url.to_owned())
    })
}

/// Every item of a listing from `first` on, page after page, up to [`MAX_PAGES`] pages.
pub async fn every_page<T, E, F, Fut>(first: &str, mut fetch: F) -> Result<Vec<T>, E>
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Result<Page<T>, E>>,
{
    let mut items = Vec::new();
    let mut next = Some(first.to_owned());
    let mut pages = 0;
    while let Some(url) = next.take() {
        pages += 1;
        let page = fetch(url).await?;
        items.extend(page.items);
        if pages < MAX_PAGES {
            next = page.next;
        }
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forge::fake::block_on;

    #[test]
    fn the_next_link_is_read_from_the_header() {
        let h = r#"<https://api.github.com/repositories/1/issues/2/comments?page=2>; rel="next", <https://api.github.com/repositories/1/issues/2/comments?page=5>; rel="last""#;
        assert_eq!(
            next_link(h).as_deref(),
            Some("https://api.github.com/repositories/1/issues/2/comments?page=2")
        );
        assert_eq!(next_link(r#"<https://x/?page=1>; rel="prev""#), None);
        assert_eq!(
            next_link("<https://x/?page=3>; rel=next").as_deref(),
            Some("https://x/?page=3")
        );
        assert_eq!(next_link("garbage"), None);
    }

    #[test]
    fn pages_are_followed_up_to_the_cap() {
        let mut asked = Vec::new();
        let items: Result<Vec<usize>, ()> = block_on(every_page("p1", |url| {
            asked.push(url.clone());
            let n: usize = url[1..].parse().unwrap_or(0);
            async move {
                Ok(Page {
                    items: vec![n],
                    next: Some(format!("p{}", n + 1)),
                })
            }
        }));
        assert_eq!(items.unwrap().len(), MAX_PAGES);
        assert_eq!(asked.len(), MAX_PAGES, "no page past the cap is asked for");
        assert_eq!(asked[1], "p2");
    }
}
