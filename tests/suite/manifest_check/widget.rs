//! Widget.

use super::*;

#[test]
fn widget_channel_reference() {
    let ds = diags_with_channels("widget:\n  enabled: true\n  channel: Info\n");
    has(
        &ds,
        Error,
        "widget.channel",
        "`widget.channel` must be a channel, but \"Info\" is declared as a category at channels[0]",
    );
    let ds = diags_with_channels("widget:\n  enabled: true\n  channel: genral\n");
    has(
        &ds,
        Warning,
        "widget.channel",
        "channel \"genral\" is not declared",
    );
    let d = ds.iter().find(|d| d.path == "widget.channel").unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean \"general\"?"));
    clean(&diags_with_channels(
        "widget:\n  enabled: true\n  channel: welcome\n",
    ));
    clean(&diags_with_channels(
        "widget:\n  enabled: false\n  channel: null\n",
    ));
}
