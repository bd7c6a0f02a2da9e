//! How a role is drawn: its colours (a solid colour, a gradient, the holographic style) and
//! its icon image. Discord deprecated `color` for `colors` {primary, secondary, tertiary}
//! (2025-07): the plan compares all three and sends `colors`.

use serde_json::{Value, json};

use crate::discord::cdn::LiveImage;
use crate::discord::models::Role as LiveRole;
use crate::manifest::{HOLOGRAPHIC, Role};
use crate::plan::field;
use crate::plan_kit::context::{ChangeBuilder, Ctx};
use crate::plan_kit::images::{Slot, image_change};

type Triple = (u32, Option<u32>, Option<u32>);

/// A triple as the manifest writes it: `"#rrggbb"` for a solid colour, `holographic`, or
/// `{primary, secondary}` (with `tertiary` for a third colour that is not the holographic one).
pub(crate) fn shown(t: Triple) -> Value {
    let hex = |c: u32| format!("#{c:06x}");
    match t {
        (p, None, None) => json!(hex(p)),
        (p, Some(s), Some(t)) if [p, s, t] == HOLOGRAPHIC => json!("holographic"),
        (p, s, t) => {
            let mut m = serde_json::Map::new();
            m.insert("primary".into(), json!(hex(p)));
            if let Some(s) = s {
                m.insert("secondary".into(), json!(hex(s)));
            }
            if let Some(t) = t {
                m.insert("tertiary".into(), json!(hex(t)));
            }
            Value::Object(m)
        }
    }
}

/// The colours a manifest entry asks for, if it manages them.
pub(crate) fn declared(d: &Role) -> Option<Triple> {
    match (d.colors, d.color) {
        (Some(c), _) => Some(c.triple()),
        (None, Some(c)) => Some((c.0, None, None)),
        (None, None) => None,
    }
}

/// Adds the colour and icon changes of role `d` (`source` is its manifest path).
pub(super) fn role_style(
    cx: &mut Ctx,
    b: &mut ChangeBuilder,
    d: &Role,
    live: Option<&LiveRole>,
    source: &str,
) {
    let features = cx.snap.guild.features.clone();
    if let Some(want) = declared(d) {
        let have = live.map(LiveRole::color_triple);
        if have != Some(want) {
            let gradient = want.1.is_some() || want.2.is_some();
            if gradient && !features.iter().any(|f| f == "ENHANCED_ROLE_COLORS") {
                cx.problem(
                    Some(format!("{source}.colors")),
                    format!(
                        "role `{}`: a gradient or the holographic style needs the guild feature ENHANCED_ROLE_COLORS, which this guild does not have (Discord refuses it: 50101)",
                        d.name
                    ),
                    Some("write a solid `color: \"#rrggbb\"`, or boost the guild to the level that gives the feature"),
                );
            } else {
                // Solid before and after reads as it always did, `color`; otherwise `colors`.
                let solid = !gradient && have.is_none_or(|h| h.1.is_none() && h.2.is_none());
                let field = if solid {
                    field::Role::Color
                } else {
                    field::Role::Colors
                };
                let (primary, secondary, tertiary) = want;
                b.set(
                    field,
                    have.map(shown).unwrap_or(Value::Null),
                    shown(want),
                    json!({
                        "primary_color": primary,
                        "secondary_color": secondary,
                        "tertiary_color": tertiary,
                    }),
                );
            }
        }
    }
    let live_icon = live.and_then(|l| {
        l.icon.as_deref().map(|hash| LiveImage {
            kind: "role-icons",
            id: &l.id,
            hash,
        })
    });
    // A new role has no icon: `icon: null` on it changes nothing.
    let slot = Slot {
        field: field::Role::Icon.into(),
        source: format!("{source}.icon"),
        declared: &d.icon,
        live: live_icon,
    };
    image_change(cx, b, slot, |_| Some("ROLE_ICONS"), &features);
}
