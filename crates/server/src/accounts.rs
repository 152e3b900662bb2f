//! Players' accounts: names, passwords (Argon2id), sessions in a cookie,
//! profiles, ratings and leaderboards (docs/api.md#accounts).

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString, rand_core::OsRng};
use axum::extract::{ConnectInfo, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use monte_rules::GameKind;
use monte_store::glicko2::Rating;
use monte_store::{AccountRow, RatingRow};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::App;
use crate::api::{JsonBody, RateLimiter, client_address, too_many};
use crate::error::{ApiError, ApiResult, ErrorBody, Malformed, Refusal, Unavailable};
use crate::model::{GameSummary, Loaded, hash_token, new_token, now_ms, one_of, random_id};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "monte_session";

/// How long a session lasts (30 days).
pub const SESSION_MS: i64 = 30 * 24 * 3600 * 1000;

/// Names nobody may take: they would pass for the site, its staff or its
/// placeholders. Compared case-folded.
const RESERVED: &[&str] = &[
    "admin",
    "administrator",
    "ai",
    "anonymous",
    "api",
    "bot",
    "computer",
    "deleted",
    "guest",
    "me",
    "mod",
    "moderator",
    "monte",
    "null",
    "operator",
    "player",
    "root",
    "server",
    "staff",
    "support",
    "system",
    "undefined",
];

/// A password's length, in characters.
const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=200;

/// The limits on sign-ins and sign-ups of this instance: per name tried
/// (whether it exists or not, so that a refusal tells nothing) and per
/// client address.
#[derive(Debug)]
pub struct Logins {
    by_name: RateLimiter<String>,
    by_address: RateLimiter<IpAddr>,
}

impl Logins {
    /// 5 tries of a name at once, then one every 12 s; 20 from an address,
    /// then one every 3 s, unless `per_address` is false (behind a proxy,
    /// where every client has the proxy's address).
    pub fn new(per_address: bool) -> Logins {
        let address_rate = if per_address { 1.0 / 3.0 } else { 0.0 };
        Logins { by_name: RateLimiter::new(1.0 / 12.0, 5.0), by_address: RateLimiter::new(address_rate, 20.0) }
    }

    /// Takes a try of `name_key` from `address`: the 429 that refuses it, if any.
    fn refusal(&self, name_key: &str, address: IpAddr) -> Option<Response> {
        let by_address = self.by_address.allow(address);
        let by_name = self.by_name.allow(name_key.to_string());
        if by_address && by_name {
            return None;
        }
        let wait = if by_name { self.by_address.retry_after() } else { self.by_name.retry_after() };
        let error = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too many sign-in attempts: wait a little")
            .named(Refusal::TooManyAttempts);
        Some(too_many(error, wait))
    }
}

/// A password as sent: never shown, not even in debug output.
#[derive(Clone, Deserialize)]
#[serde(transparent)]
pub struct Password(String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(hidden)")
    }
}

/// The case-folded form of a checked account name (its key: one account
/// per key), or why the name cannot be an account's.
///
/// A name is 2 to 20 letters, digits, `-` or `_`, its letters all Latin
/// or all Cyrillic: a name mixing the two could pass for another
/// (Latin `a` and Cyrillic `а` look the same).
pub fn name_key(name: &str) -> ApiResult<String> {
    let invalid = || {
        ApiError::bad_request(format!(
            "name `{}`: 2 to 20 letters (Latin or Cyrillic, not both), digits, - or _",
            name.chars().take(40).collect::<String>()
        ))
        .named(Refusal::NameInvalid)
    };
    let length = name.chars().count();
    let cyrillic = |c: char| matches!(c, '\u{0400}'..='\u{04FF}') && c.is_alphabetic();
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_' || cyrillic(c);
    let mixed = name.chars().any(|c| c.is_ascii_alphabetic()) && name.chars().any(cyrillic);
    if !(2..=20).contains(&length) || !name.chars().all(allowed) || mixed {
        return Err(invalid());
    }
    let key = name.to_lowercase();
    if RESERVED.contains(&key.as_str()) {
        return Err(ApiError::bad_request(format!("the name `{name}` is reserved")).named(Refusal::NameReserved));
    }
    Ok(key)
}

/// Why a password cannot be an account's.
pub fn check_password(password: &str) -> ApiResult<()> {
    if !PASSWORD_CHARS.contains(&password.chars().count()) {
        return Err(ApiError::bad_request(format!(
            "password: {} to {} characters",
            PASSWORD_CHARS.start(),
            PASSWORD_CHARS.end()
        ))
        .named(Refusal::PasswordInvalid));
    }
    Ok(())
}

/// Argon2id of `password` with a new random salt, in the PHC string
/// format; off the async threads (it takes tens of milliseconds on purpose).
pub async fn hash_password(password: String) -> ApiResult<String> {
    tokio::task::spawn_blocking(move || hash_password_now(&password))
        .await
        .map_err(|_| ApiError::internal("the password could not be hashed"))?
}

/// [`hash_password`] on this thread (for the command line).
pub fn hash_password_now(password: &str) -> ApiResult<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| ApiError::internal(format!("the password could not be hashed: {e}")))
}

/// Whether `password` matches `hash` (an unreadable hash matches nothing;
/// none: checked against a decoy, and false); off the async threads.
async fn verify_password(password: String, hash: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || match hash {
        Some(hash) => verify_password_now(&password, &hash),
        None => {
            verify_password_now(&password, &decoy_hash());
            false
        }
    })
    .await
    .unwrap_or(false)
}

/// [`verify_password`] on this thread.
pub fn verify_password_now(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// A hash of no one's password: a sign-in with a name that does not exist
/// checks the password against it, so that it takes as long as one with a
/// wrong password.
fn decoy_hash() -> String {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| hash_password_now(&new_token()).unwrap_or_default()).clone()
}

/// The account a request's session cookie signs in, if any.
#[derive(Debug, Clone)]
pub struct SignedIn(pub Option<AccountRow>);

impl FromRequestParts<Arc<App>> for SignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> ApiResult<SignedIn> {
        let Some(token) = session_token(&parts.headers) else { return Ok(SignedIn(None)) };
        Ok(SignedIn(app.games.store.session_account(&hash_token(token), now_ms()).await?))
    }
}

impl SignedIn {
    /// The account, or 401.
    pub fn required(self) -> ApiResult<AccountRow> {
        self.0.ok_or_else(|| ApiError::unauthorized("you are not signed in").named(Refusal::NotSignedIn))
    }
}

/// The session token of the request's cookie.
fn session_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim())
        .filter(|v| !v.is_empty() && v.len() <= 128)
}

/// Whether the cookie is marked Secure: always with `--secure-cookies`,
/// and when a TLS proxy in front says the request came over HTTPS
/// (`X-Forwarded-Proto: https`). A client who sends that header over
/// plain HTTP only loses its own cookie.
fn secure(app: &App, headers: &HeaderMap) -> bool {
    let forwarded = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"));
    app.config.secure_cookies || forwarded
}

fn cookie(app: &App, headers: &HeaderMap, value: &str, max_age_s: i64) -> ApiResult<HeaderValue> {
    let secure = if secure(app, headers) { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_s}{secure}"
    ))
    .map_err(|_| ApiError::internal("the session cookie could not be written"))
}

/// Opens a session for `account`: the answer `body` with its cookie.
async fn open_session(
    app: &App,
    headers: &HeaderMap,
    account: &AccountRow,
    status: StatusCode,
    body: Me,
) -> ApiResult<Response> {
    let token = new_token();
    let now = now_ms();
    app.games.store.create_session(&hash_token(&token), &account.id, now, now + SESSION_MS).await?;
    let cookie = cookie(app, headers, &token, SESSION_MS / 1000)?;
    Ok((status, [(header::SET_COOKIE, cookie)], Json(body)).into_response())
}

/// Gives the account the guest seats of these tokens (the browser's games
/// from before it signed in).
async fn attach(app: &App, account: &AccountRow, tokens: &[String]) -> ApiResult<()> {
    if tokens.len() > 100 || tokens.iter().any(|t| t.len() > 128) {
        return Err(ApiError::bad_request("tokens: at most 100, of at most 128 characters"));
    }
    let hashes: Vec<String> = tokens.iter().map(|t| hash_token(t)).collect();
    for id in app.games.store.attach_seats(account, &hashes).await? {
        app.games.refresh(&id, None).await;
    }
    Ok(())
}

/// A name and a password, and the seat tokens this browser holds as a guest.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({ "name": "Ann", "password": "correct horse battery" }))]
pub struct Credentials {
    #[schema(min_length = 2, max_length = 20, pattern = "^[A-Za-z0-9_-]+$|^[\\p{Cyrillic}0-9_-]+$")]
    name: String,
    #[schema(value_type = String, min_length = 8, max_length = 200, format = Password)]
    password: Password,
    /// Seat tokens of the guest's games in this browser: their seats
    /// become the account's.
    #[serde(default)]
    #[schema(max_items = 100)]
    tokens: Vec<String>,
}

/// The signed-in player.
#[derive(Debug, Serialize, ToSchema)]
pub struct Me {
    name: String,
    /// Milliseconds since the epoch.
    created_at: i64,
}

impl Me {
    fn of(account: &AccountRow) -> Me {
        Me { name: account.name.clone(), created_at: account.created_at }
    }
}

/// Sign up: a new account, signed in
///
/// A name is 2 to 20 letters (Latin or Cyrillic, not both), digits, `-` or
/// `_`; names are the same whatever their case; some are reserved. A
/// password is 8 to 200 characters. The answer sets the session cookie
/// (`monte_session`, HttpOnly, SameSite=Lax).
#[utoipa::path(post, path = "/api/accounts", request_body = Credentials, responses(
    (status = 201, description = "signed up and in (Set-Cookie)", body = Me),
    (status = 400, description = "the name or the password is not allowed", body = ErrorBody),
    (status = 409, description = "the name is taken", body = ErrorBody),
    (status = 429, description = "too many attempts from this address (Retry-After)", body = ErrorBody),
    (status = 503, response = Unavailable),
))]
pub async fn sign_up(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    JsonBody(body): JsonBody<Credentials>,
) -> ApiResult<Response> {
    let key = name_key(&body.name)?;
    check_password(&body.password.0)?;
    if let Some(refused) = app.logins.refusal(&key, client_address(peer.as_ref().map(|p| &p.0))) {
        return Ok(refused);
    }
    let account = AccountRow {
        id: random_id(12),
        name: body.name.clone(),
        password_hash: hash_password(body.password.0).await?,
        created_at: now_ms(),
    };
    if !app.games.store.create_account(&account, &key).await? {
        return Err(ApiError::conflict(format!("the name `{}` is taken", body.name)).named(Refusal::NameTaken));
    }
    attach(&app, &account, &body.tokens).await?;
    open_session(&app, &headers, &account, StatusCode::CREATED, Me::of(&account)).await
}

/// Sign in
///
/// A wrong name and a wrong password get the same answer, after the same
/// time. Tries are limited per name and per client address (429).
#[utoipa::path(post, path = "/api/session", request_body = Credentials, responses(
    (status = 200, description = "signed in (Set-Cookie)", body = Me),
    (status = 401, description = "wrong name or password", body = ErrorBody),
    (status = 429, description = "too many attempts for this name or from this address (Retry-After)",
        body = ErrorBody),
    (status = 503, response = Unavailable),
))]
pub async fn sign_in(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    JsonBody(body): JsonBody<Credentials>,
) -> ApiResult<Response> {
    let wrong = || ApiError::unauthorized("wrong name or password").named(Refusal::WrongCredentials);
    // A name no account can have is tried like any other: the answer
    // must not tell names apart.
    let key = name_key(&body.name).unwrap_or_else(|_| body.name.to_lowercase());
    if let Some(refused) = app.logins.refusal(&key, client_address(peer.as_ref().map(|p| &p.0))) {
        return Ok(refused);
    }
    let account = app.games.store.account_by_name(&key).await?;
    let matches = verify_password(body.password.0, account.as_ref().map(|a| a.password_hash.clone())).await;
    let Some(account) = account.filter(|_| matches) else { return Err(wrong()) };
    attach(&app, &account, &body.tokens).await?;
    open_session(&app, &headers, &account, StatusCode::OK, Me::of(&account)).await
}

/// Sign out: ends this browser's session (if any) and clears its cookie
#[utoipa::path(delete, path = "/api/session", responses(
    (status = 204, description = "signed out"),
    (status = 503, response = Unavailable),
))]
pub async fn sign_out(State(app): State<Arc<App>>, headers: HeaderMap) -> ApiResult<Response> {
    if let Some(token) = session_token(&headers) {
        app.games.store.delete_session(&hash_token(token)).await?;
    }
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie(&app, &headers, "", 0)?)]).into_response())
}

/// What a request that needs a session may fail with.
#[derive(Debug, utoipa::IntoResponses)]
pub enum SessionErrors {
    #[response(status = 401)]
    NotSignedIn(#[ref_response] crate::error::NotSignedIn),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

/// Who is signed in
#[utoipa::path(get, path = "/api/me", responses(
    (status = 200, description = "the signed-in player", body = Me),
    SessionErrors,
))]
pub async fn me(signed_in: SignedIn) -> ApiResult<Json<Me>> {
    Ok(Json(Me::of(&signed_in.required()?)))
}

/// A player's rating in one game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingView {
    /// Glicko-2 rating, rounded.
    rating: i64,
    /// Rating deviation, rounded: the rating is provisional above 110.
    deviation: i64,
    /// Rated games played.
    games: i64,
    provisional: bool,
}

impl RatingView {
    fn of(rating: Rating, games: i64) -> RatingView {
        RatingView {
            rating: rating.rating.round() as i64,
            deviation: rating.deviation.round() as i64,
            games,
            provisional: rating.deviation > PROVISIONAL_ABOVE,
        }
    }
}

/// A rating whose deviation is above this is provisional (lichess's `?`).
const PROVISIONAL_ABOVE: f64 = 110.0;

/// A rating after a rated game.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingPointView {
    /// The game.
    game: String,
    /// When it ended, in milliseconds since the epoch.
    at: i64,
    rating: i64,
    deviation: i64,
}

/// A player's public page: ratings per game and their history.
#[derive(Debug, Serialize, ToSchema)]
pub struct Profile {
    name: String,
    created_at: i64,
    /// Per game (every game has one: 1500, provisional, before any rated game).
    #[schema(value_type = BTreeMap<String, RatingView>)]
    ratings: BTreeMap<&'static str, RatingView>,
    /// Per game, the rating after each rated game, oldest first.
    #[schema(value_type = BTreeMap<String, Vec<RatingPointView>>)]
    history: BTreeMap<&'static str, Vec<RatingPointView>>,
}

/// The games of every build (a test-only game is left out).
fn kinds() -> impl Iterator<Item = GameKind> {
    GameKind::ALL.into_iter().filter(|k| k.in_every_build())
}

/// An account's rating in a game, rounded (1500 before any rated game).
pub async fn rating_of(app: &App, account: &AccountRow, kind: GameKind) -> ApiResult<i64> {
    let rows = app.games.store.ratings(&account.id).await?;
    let rating = rows.iter().find(|r| r.kind == kind.name()).map_or(Rating::NEW, |r| r.rating);
    Ok(rating.rating.round() as i64)
}

async fn profile_of(app: &App, account: &AccountRow) -> ApiResult<Profile> {
    let store = &app.games.store;
    let rows: Vec<RatingRow> = store.ratings(&account.id).await?;
    let points = store.rating_history(&account.id).await?;
    let mut ratings = BTreeMap::new();
    let mut history = BTreeMap::new();
    for kind in kinds() {
        let row = rows.iter().find(|r| r.kind == kind.name());
        ratings.insert(kind.name(), row.map_or(RatingView::of(Rating::NEW, 0), |r| RatingView::of(r.rating, r.games)));
        let own = points.iter().filter(|p| p.kind == kind.name());
        let own = own.map(|p| RatingPointView {
            game: p.game_id.clone(),
            at: p.at,
            rating: p.rating.round() as i64,
            deviation: p.deviation.round() as i64,
        });
        history.insert(kind.name(), own.collect());
    }
    Ok(Profile { name: account.name.clone(), created_at: account.created_at, ratings, history })
}

/// The player a route names.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PlayerName {
    /// The player's name (any case).
    name: String,
}

async fn find_player(app: &App, name: &str) -> ApiResult<AccountRow> {
    let missing = || ApiError::not_found(format!("no player `{}`", name.chars().take(40).collect::<String>()));
    let key = name_key(name).map_err(|_| missing())?;
    app.games.store.account_by_name(&key).await?.ok_or_else(missing)
}

/// What reading a player can fail with.
#[derive(Debug, utoipa::IntoResponses)]
pub enum PlayerErrors {
    #[response(status = 404)]
    NoSuchPlayer(#[ref_response] crate::error::NoSuchPlayer),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

/// A player's profile: ratings per game and their history
#[utoipa::path(get, path = "/api/players/{name}", params(PlayerName), responses(
    (status = 200, description = "the profile", body = Profile),
    PlayerErrors,
))]
pub async fn player(
    State(app): State<Arc<App>>,
    Path(PlayerName { name }): Path<PlayerName>,
) -> ApiResult<Json<Profile>> {
    let account = find_player(&app, &name).await?;
    Ok(Json(profile_of(&app, &account).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct Page {
    #[param(minimum = 1, maximum = 100, default = 20)]
    limit: Option<i64>,
    /// Games to skip (the previous page's `next_offset`).
    #[param(minimum = 0, default = 0)]
    offset: Option<i64>,
}

/// A page of a player's games, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerGames {
    games: Vec<GameSummary>,
    /// The `offset` of the next page; none on the last.
    next_offset: Option<i64>,
}

/// A player's games, finished and running, newest first
#[utoipa::path(get, path = "/api/players/{name}/games", params(PlayerName, Page), responses(
    (status = 200, description = "a page of games", body = PlayerGames),
    (status = 400, response = Malformed),
    PlayerErrors,
))]
pub async fn player_games(
    State(app): State<Arc<App>>,
    Path(PlayerName { name }): Path<PlayerName>,
    Query(page): Query<Page>,
) -> ApiResult<Json<PlayerGames>> {
    let limit = page.limit.unwrap_or(20);
    let offset = page.offset.unwrap_or(0);
    if !(1..=100).contains(&limit) || offset < 0 {
        return Err(ApiError::bad_request(format!("limit {limit}, offset {offset}: limit 1 to 100, offset 0 or more")));
    }
    let account = find_player(&app, &name).await?;
    // One more than asked: whether there is a next page.
    let mut rows = app.games.store.account_games(&account.id, limit + 1, offset).await?;
    let next_offset = (rows.len() as i64 > limit).then_some(offset + limit);
    rows.truncate(limit as usize);
    Ok(Json(PlayerGames { games: rows.iter().map(Loaded::summary).collect(), next_offset }))
}

/// A line of a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderView {
    rank: usize,
    name: String,
    #[serde(flatten)]
    rating: RatingView,
}

/// The best rated players of a game.
#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    #[schema(schema_with = one_of::game_kind)]
    game: &'static str,
    players: Vec<LeaderView>,
}

/// The game a route names.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct GameName {
    #[param(schema_with = one_of::game_kind)]
    game: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    #[param(minimum = 1, maximum = 200, default = 50)]
    limit: Option<i64>,
}

/// The leaderboard of a game: players with a rated game, highest rating first
#[utoipa::path(get, path = "/api/leaderboard/{game}", params(GameName, BoardQuery), responses(
    (status = 200, description = "the leaderboard", body = Leaderboard),
    (status = 400, response = Malformed),
    (status = 404, description = "no such game kind", body = ErrorBody),
    (status = 503, response = Unavailable),
))]
pub async fn leaderboard(
    State(app): State<Arc<App>>,
    Path(GameName { game }): Path<GameName>,
    Query(q): Query<BoardQuery>,
) -> ApiResult<Json<Leaderboard>> {
    let kind: GameKind = game.parse().map_err(|e| ApiError::not_found(format!("{e}")))?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(ApiError::bad_request(format!("limit {limit}: expected 1 to 200")));
    }
    let leaders = app.games.store.leaderboard(kind.name(), limit).await?;
    let players = leaders
        .into_iter()
        .enumerate()
        .map(|(i, l)| LeaderView { rank: i + 1, name: l.name, rating: RatingView::of(l.rating.rating, l.rating.games) })
        .collect();
    Ok(Json(Leaderboard { game: kind.name(), players }))
}

/// Everything the server keeps about a player.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountData {
    profile: Profile,
    /// Every game the player held a seat of, newest first.
    games: Vec<GameSummary>,
}

/// Download all of one's data (JSON)
#[utoipa::path(get, path = "/api/me/data", responses(
    (status = 200, description = "the account, its ratings and its games (an attachment)", body = AccountData),
    SessionErrors,
))]
pub async fn my_data(State(app): State<Arc<App>>, signed_in: SignedIn) -> ApiResult<Response> {
    let account = signed_in.required()?;
    let profile = profile_of(&app, &account).await?;
    let rows = app.games.store.account_games(&account.id, i64::MAX, 0).await?;
    let data = AccountData { profile, games: rows.iter().map(Loaded::summary).collect() };
    let file = format!("attachment; filename=\"monte-{}.json\"", account.name.to_lowercase());
    let disposition = HeaderValue::from_str(&file).unwrap_or(HeaderValue::from_static("attachment"));
    Ok(([(header::CONTENT_DISPOSITION, disposition)], Json(data)).into_response())
}

/// The password again, to confirm.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Confirm {
    #[schema(value_type = String, format = Password)]
    password: Password,
}

/// Delete one's account
///
/// Its sessions and ratings go; its games stay, their seats without the
/// name. The name may be taken again.
#[utoipa::path(delete, path = "/api/me", request_body = Confirm, responses(
    (status = 204, description = "deleted, and signed out"),
    (status = 400, response = Malformed),
    (status = 403, description = "wrong password", body = ErrorBody),
    SessionErrors,
))]
pub async fn delete_me(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    signed_in: SignedIn,
    JsonBody(body): JsonBody<Confirm>,
) -> ApiResult<Response> {
    let account = signed_in.required()?;
    if !verify_password(body.password.0, Some(account.password_hash.clone())).await {
        return Err(ApiError::forbidden("wrong password").named(Refusal::WrongCredentials));
    }
    for id in app.games.store.delete_account(&account.id).await? {
        app.games.refresh(&id, None).await;
    }
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie(&app, &headers, "", 0)?)]).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_folded() {
        assert_eq!(name_key("Ann_2-b").unwrap(), "ann_2-b");
        assert_eq!(name_key("Анна").unwrap(), "анна");
        for bad in ["a", "abcdefghijklmnopqrstu", "Ann Lee", "Ann!", "Аnn", "", "émile"] {
            assert_eq!(name_key(bad).unwrap_err().refusal, Some(Refusal::NameInvalid), "{bad}");
        }
        assert_eq!(name_key("Admin").unwrap_err().refusal, Some(Refusal::NameReserved));
    }

    #[test]
    fn passwords_are_hashed_with_argon2id_and_verified() {
        let hash = hash_password_now("correct horse").unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify_password_now("correct horse", &hash));
        assert!(!verify_password_now("wrong horse", &hash));
        assert!(!verify_password_now("correct horse", "not a hash"));
        assert!(!format!("{:?}", Password("secret".into())).contains("secret"));
    }

    #[test]
    fn the_session_comes_from_its_cookie() {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_static("a=1; monte_session=abc ; b=2"));
        assert_eq!(session_token(&headers), Some("abc"));
        headers.insert(header::COOKIE, HeaderValue::from_static("monte_session="));
        assert_eq!(session_token(&headers), None);
    }
}
