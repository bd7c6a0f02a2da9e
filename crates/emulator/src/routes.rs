//! Routing in one place: the `/api/v10` routes with their middleware stack,
//! the `/_emulator` control routes, and the path decoding in front of them.
//!
//! Every API request passes five middleware layers before its handler, outermost
//! first: `via` (the `Via` header), then the four of [`layers`]: `record` (the
//! request log), `invalid_requests` (the invalid-request counter and its refusal),
//! `inject` (fault injection) and `limit` (global limit, route buckets,
//! sublimits). Handlers know nothing of them. Control routes pass one layer of
//! their own, `control::guard` (loopback `Host`, JSON bodies).

use axum::Router;
use axum::extract::Request;
use axum::http::header::VIA;
use axum::http::uri::PathAndQuery;
use axum::http::{HeaderValue, Uri};
use axum::middleware;
use axum::response::Response;
use axum::routing::{any, delete, get, patch, post, put};
use tower::Layer;
use tower::util::{MapRequest, MapRequestLayer};

use crate::app::App;
use crate::error::ApiError;
use crate::{
    application, audit_log, automod, bans, channels, control, emojis, followers, gateway, guild,
    images, incidents, integrations, invites, layers, member_edit, members, onboarding, overwrites,
    prune, regions, roles, scheduled_events, soundboard, stickers, threads, users,
    webhook_messages, webhooks, welcome, widget,
};

/// The server as `axum::serve` runs it: the router behind path decoding.
pub type Service = MapRequest<Router, fn(Request) -> Request>;

/// Wraps the whole router because `Router::layer` runs after the route is
/// matched, too late to decode the path the match is made on.
pub fn service(app: App) -> Service {
    MapRequestLayer::new(decode_path as fn(Request) -> Request).layer(router(app))
}

/// [`service`] without the `/_emulator/*` control endpoints: a path with an `_emulator`
/// segment is Discord's 404, before any handler, so only the API (and its token) remains.
/// For a server only its starter may reach (guildctl's rehearsal copy).
pub fn service_without_control(app: App) -> Service {
    let router = router(app).layer(middleware::from_fn(no_control));
    MapRequestLayer::new(decode_path as fn(Request) -> Request).layer(router)
}

async fn no_control(req: Request, next: middleware::Next) -> Response {
    if req.uri().path().split('/').any(|s| s == "_emulator") {
        return axum::response::IntoResponse::into_response(not_found().await);
    }
    next.run(req).await
}

/// Discord decodes percent-encoded path segments (§9.6): `/users/%40me` is
/// `/users/@me`. Everything after this (routes, rate-limit buckets, faults,
/// the request log) sees the decoded path.
fn decode_path(mut req: Request) -> Request {
    if let Some(path) = decoded_path(req.uri().path()) {
        let pq = match req.uri().query() {
            Some(q) => format!("{path}?{q}"),
            None => path,
        };
        let mut parts = req.uri().clone().into_parts();
        if let Ok(pq) = PathAndQuery::try_from(pq) {
            parts.path_and_query = Some(pq);
            if let Ok(uri) = Uri::from_parts(parts) {
                *req.uri_mut() = uri;
            }
        }
    }
    req
}

/// The path with each `%XX` that stands for a character a segment may hold
/// as it is (letters, digits, `-._~!$&'()*+,;=:@`) decoded, or `None` if
/// there is none. The rest stays encoded: `%2F` must not become a separator,
/// `%25` must not be decoded a second time by the `Path` extractor, and
/// spaces or non-ASCII bytes cannot stand bare in a URI.
fn decoded_path(path: &str) -> Option<String> {
    fn hex(b: u8) -> Option<u8> {
        (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            let c = hi * 16 + lo;
            if c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&c) {
                out.push(c);
                changed = true;
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    // Only ASCII was put in for ASCII taken out: still UTF-8.
    changed.then(|| String::from_utf8(out).ok()).flatten()
}

pub fn router(app: App) -> Router {
    let api = Router::new()
        .route("/users/@me", get(users::get_me))
        .route("/gateway", get(gateway::get_gateway))
        .route("/gateway/bot", get(gateway::get_gateway_bot))
        .route("/users/{u}", get(users::get_user))
        .route(
            "/oauth2/applications/@me",
            get(application::get_my_application),
        )
        .route(
            "/guilds/{g}",
            get(guild::get_guild).patch(guild::patch_guild),
        )
        .route("/guilds/{g}/preview", get(guild::get_guild_preview))
        .route(
            "/guilds/{g}/threads/active",
            get(threads::get_active_threads),
        )
        .route("/guilds/{g}/members", get(members::list_members))
        .route("/guilds/{g}/members/search", get(members::search_members))
        // discord.js sends `members/%40me`: decoded to `@me` before routing.
        .route(
            "/guilds/{g}/members/@me",
            patch(member_edit::modify_current_member),
        )
        .route(
            "/guilds/{g}/members/@me/nick",
            patch(member_edit::modify_current_nick),
        )
        .route(
            "/guilds/{g}/members/{u}",
            get(users::get_member)
                .put(members::add_member)
                .patch(member_edit::modify_member)
                .delete(members::remove_member),
        )
        .route(
            "/guilds/{g}/members/{u}/roles/{r}",
            put(members::add_member_role).delete(members::remove_member_role),
        )
        .route(
            "/guilds/{g}/roles/member-counts",
            get(members::role_member_counts),
        )
        .route("/guilds/{g}/bans", get(bans::list_bans))
        .route(
            "/guilds/{g}/bans/{u}",
            get(bans::get_ban)
                .put(bans::put_ban)
                .delete(bans::delete_ban),
        )
        .route("/guilds/{g}/bulk-ban", post(bans::bulk_ban))
        .route(
            "/guilds/{g}/roles",
            get(roles::get_roles)
                .post(roles::post_role)
                .patch(roles::patch_roles),
        )
        .route(
            "/guilds/{g}/roles/{r}",
            get(roles::get_role)
                .patch(roles::patch_role)
                .delete(roles::delete_role),
        )
        .route(
            "/guilds/{g}/channels",
            get(channels::get_channels)
                .post(channels::post_channel)
                .patch(channels::patch_channel_positions),
        )
        .route(
            "/channels/{c}",
            get(channels::get_channel)
                .patch(channels::patch_channel)
                .delete(channels::delete_channel),
        )
        .route(
            "/channels/{c}/permissions/{o}",
            put(overwrites::put_overwrite).delete(overwrites::delete_overwrite),
        )
        .route("/guilds/{g}/audit-logs", get(audit_log::get_audit_logs))
        .route(
            "/channels/{c}/webhooks",
            get(webhooks::get_channel_webhooks).post(webhooks::post_webhook),
        )
        .route("/guilds/{g}/webhooks", get(webhooks::get_guild_webhooks))
        .route(
            "/guilds/{g}/welcome-screen",
            get(welcome::get_welcome_screen).patch(welcome::patch_welcome_screen),
        )
        .route(
            "/guilds/{g}/widget",
            get(widget::get_widget_settings).patch(widget::patch_widget),
        )
        // Public: no Authorization needed.
        .route("/guilds/{g}/widget.json", get(widget::get_widget_json))
        // Public: no Authorization needed.
        .route("/guilds/{g}/widget.png", get(widget::get_widget_png))
        .route(
            "/guilds/{g}/integrations",
            get(integrations::get_integrations),
        )
        .route(
            "/guilds/{g}/integrations/{i}",
            delete(integrations::delete_integration),
        )
        .route("/guilds/{g}/invites", get(invites::get_guild_invites))
        .route(
            "/invites/{code}",
            get(invites::get_invite).delete(invites::delete_invite),
        )
        .route(
            "/invites/{code}/target-users",
            get(invites::get_target_users).put(invites::put_target_users),
        )
        .route(
            "/invites/{code}/target-users/job-status",
            get(invites::get_target_users_job),
        )
        .route("/guilds/{g}/vanity-url", get(invites::get_vanity_url))
        .route(
            "/guilds/{g}/incident-actions",
            put(incidents::put_incident_actions),
        )
        .route("/guilds/{g}/regions", get(regions::get_regions))
        .route(
            "/guilds/{g}/prune",
            get(prune::get_prune_count).post(prune::begin_prune),
        )
        .route(
            "/guilds/{g}/onboarding",
            get(onboarding::get_onboarding).put(onboarding::put_onboarding),
        )
        .route(
            "/guilds/{g}/auto-moderation/rules",
            get(automod::list_rules).post(automod::create_rule),
        )
        .route(
            "/guilds/{g}/auto-moderation/rules/{r}",
            get(automod::get_rule)
                .patch(automod::modify_rule)
                .delete(automod::delete_rule),
        )
        .route(
            "/guilds/{g}/emojis",
            get(emojis::list_emojis).post(emojis::create_emoji),
        )
        .route(
            "/guilds/{g}/emojis/{e}",
            get(emojis::get_emoji)
                .patch(emojis::modify_emoji)
                .delete(emojis::delete_emoji),
        )
        .route(
            "/guilds/{g}/stickers",
            get(stickers::list_stickers).post(stickers::create_sticker),
        )
        .route(
            "/guilds/{g}/stickers/{s}",
            get(stickers::get_sticker)
                .patch(stickers::modify_sticker)
                .delete(stickers::delete_sticker),
        )
        .route(
            "/guilds/{g}/soundboard-sounds",
            get(soundboard::list_sounds).post(soundboard::create_sound),
        )
        .route(
            "/guilds/{g}/soundboard-sounds/{s}",
            get(soundboard::get_sound)
                .patch(soundboard::modify_sound)
                .delete(soundboard::delete_sound),
        )
        .route(
            "/guilds/{g}/scheduled-events",
            get(scheduled_events::list_events).post(scheduled_events::create_event),
        )
        .route(
            "/guilds/{g}/scheduled-events/{e}",
            get(scheduled_events::get_event)
                .patch(scheduled_events::modify_event)
                .delete(scheduled_events::delete_event),
        )
        .route("/channels/{c}/followers", post(followers::follow_channel))
        .route(
            "/webhooks/{w}",
            get(webhooks::get_webhook)
                .patch(webhooks::patch_webhook)
                .delete(webhooks::delete_webhook),
        )
        // The token routes take no Authorization: the token is the credential.
        .route(
            "/webhooks/{w}/{t}",
            get(webhooks::get_webhook_with_token)
                .post(webhook_messages::execute)
                .patch(webhooks::patch_webhook_with_token)
                .delete(webhooks::delete_webhook_with_token),
        )
        .route(
            "/webhooks/{w}/{t}/slack",
            post(webhook_messages::execute_chat_tool),
        )
        .route(
            "/webhooks/{w}/{t}/github",
            post(webhook_messages::execute_code_host),
        )
        .route(
            "/webhooks/{w}/{t}/messages/{m}",
            get(webhook_messages::get_message)
                .patch(webhook_messages::edit_message)
                .delete(webhook_messages::delete_message),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // Innermost first.
        .layer(middleware::from_fn_with_state(app.clone(), layers::limit))
        .layer(middleware::from_fn_with_state(app.clone(), layers::inject))
        .layer(middleware::from_fn_with_state(
            app.clone(),
            layers::invalid_requests,
        ))
        .layer(middleware::from_fn_with_state(app.clone(), layers::record))
        // Outermost, so every answer of the layers inside gets it too.
        .layer(middleware::map_response(via));

    let control = Router::new()
        .route(
            "/requests",
            get(control::get_requests).delete(control::clear_requests),
        )
        .route("/state", get(control::get_state).put(control::put_state))
        .route("/config", get(control::get_config).put(control::put_config))
        .route(
            "/faults",
            get(control::get_faults)
                .post(control::post_faults)
                .delete(control::clear_faults),
        )
        .route("/clock", get(control::get_clock).post(control::post_clock))
        .route("/ratelimits", delete(control::reset_ratelimits))
        .route(
            "/gateway",
            get(control::get_gateway).post(control::post_gateway),
        )
        .route("/tokens", post(control::post_token))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // After the fallbacks, so that unknown control paths are guarded too.
        .layer(middleware::from_fn(control::guard));

    Router::new()
        .nest("/api/v10", api)
        .nest("/_emulator", control)
        // The Gateway's WebSocket, at the URL `GET /gateway` gives (clients add `/?v=10…`).
        .route("/gateway", get(gateway::socket::upgrade))
        .route("/gateway/", get(gateway::socket::upgrade))
        // The CDN's paths, for the images the API answers with hashes (images.rs)…
        .route("/cdn/{kind}/{id}/{file}", get(images::get_image))
        // …and for emoji, stickers and sounds, named by their ids.
        .route("/cdn/{kind}/{file}", get(images::get_asset))
        // Other paths (`/api/v9/…`) are Discord's 404s too, with its `Via`.
        .fallback_service(any(not_found).layer(middleware::map_response(via)))
        .with_state(app)
}

/// Discord's API answers all carry `Via: 1.1 google`, 429s included;
/// discord.py takes a 429 without it for a Cloudflare ban (§9.3).
async fn via(mut resp: Response) -> Response {
    resp.headers_mut()
        .insert(VIA, HeaderValue::from_static("1.1 google"));
    resp
}

async fn not_found() -> ApiError {
    ApiError::not_found()
}

async fn method_not_allowed() -> ApiError {
    ApiError::method_not_allowed()
}

#[cfg(test)]
mod tests {
    use super::decoded_path;

    #[test]
    fn only_characters_a_segment_may_hold_are_decoded() {
        assert_eq!(decoded_path("/users/%40me").as_deref(), Some("/users/@me"));
        assert_eq!(decoded_path("/a/%3a%3A%7e").as_deref(), Some("/a/::~"));
        assert_eq!(decoded_path("/users/@me"), None);
        for kept in [
            "/g/1%2Froles",
            "/g/1%2froles",
            "/u/%2540me",
            "/u/a%20b",
            "/u/%C3%A9",
        ] {
            assert_eq!(decoded_path(kept), None, "{kept}");
        }
        assert_eq!(
            decoded_path("/u/%40%2F%4").as_deref(),
            Some("/u/@%2F%4"),
            "a truncated escape stays as it is"
        );
        assert_eq!(decoded_path("/u/%"), None);
    }
}
