//! Orderings: declared lists decide the relative order of what they declare;
//! undeclared live objects keep their place next to their declared neighbour.

use std::hash::Hash;

use hashbrown::{HashMap, HashSet};

/// The order a group should end up in: declared items in manifest order, each
/// undeclared live item staying just below the declared item that precedes it
/// live (or at the top when none does). Raw position numbers never enter.
pub(crate) fn target_order<K: Clone + Eq + Hash>(live: &[K], declared: &[K]) -> Vec<K> {
    let declared_set: HashSet<&K> = declared.iter().collect();
    let mut head = Vec::new();
    let mut attached: HashMap<&K, Vec<K>> = HashMap::new();
    let mut anchor: Option<&K> = None;
    for k in live {
        if declared_set.contains(k) {
            anchor = Some(k);
        } else {
            match anchor {
                None => head.push(k.clone()),
                Some(a) => attached.entry(a).or_default().push(k.clone()),
            }
        }
    }
    let mut out = head;
    for d in declared {
        out.push(d.clone());
        if let Some(rest) = attached.remove(d) {
            out.extend(rest);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::target_order;

    #[test]
    fn same_order_stays_put() {
        let live = ["a", "x", "b", "c"];
        assert_eq!(target_order(&live, &["a", "b", "c"]), live);
    }

    #[test]
    fn undeclared_items_follow_their_declared_neighbour() {
        let live = ["x", "a", "y", "b", "c"];
        assert_eq!(
            target_order(&live, &["c", "a", "b"]),
            ["x", "c", "a", "y", "b"]
        );
    }

    #[test]
    fn new_items_take_their_declared_place() {
        let live = ["a", "b"];
        assert_eq!(target_order(&live, &["a", "n", "b"]), ["a", "n", "b"]);
    }
}
