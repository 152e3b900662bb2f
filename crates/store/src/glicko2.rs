//! Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system",
//! 2022): a rating, its deviation (how uncertain it is) and a volatility
//! (how erratic the player's results are). Every rated game is a rating
//! period of its own, with one opponent, so that a rating changes as soon
//! as a game ends.

use std::f64::consts::PI;

/// The Glicko-2 scale's factor: 173.7178 Glicko points per unit.
const SCALE: f64 = 173.7178;

/// The system constant τ: how much the volatility may change in a period
/// (Glickman suggests 0.3 to 1.2; smaller is steadier).
pub const TAU: f64 = 0.5;

/// The convergence tolerance of the volatility's iteration (Glickman's ε).
const EPSILON: f64 = 0.000_001;

/// A rating as it stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Rating {
    /// A player without rated games: 1500, deviation 350, volatility 0.06.
    pub const NEW: Rating = Rating { rating: 1500.0, deviation: 350.0, volatility: 0.06 };

    fn mu(self) -> f64 {
        (self.rating - 1500.0) / SCALE
    }

    fn phi(self) -> f64 {
        self.deviation / SCALE
    }
}

/// A game's score for one player: 1 a win, 0.5 a draw, 0 a loss.
pub type Score = f64;

/// The rating after one rating period against `results` (opponent, score),
/// with system constant `tau`. Without results only the deviation grows.
/// The deviation never grows past a new player's.
pub fn rate(player: Rating, results: &[(Rating, Score)], tau: f64) -> Rating {
    let (mu, phi, sigma) = (player.mu(), player.phi(), player.volatility);
    if results.is_empty() {
        let deviation = ((phi * phi + sigma * sigma).sqrt() * SCALE).min(Rating::NEW.deviation);
        return Rating { deviation, ..player };
    }
    let g = |phi_j: f64| 1.0 / (1.0 + 3.0 * phi_j * phi_j / (PI * PI)).sqrt();
    let expected = |mu_j: f64, phi_j: f64| 1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp());
    // Step 3 and 4: the estimated variance `v` and improvement `delta`.
    let mut inverse_v = 0.0;
    let mut improvement = 0.0;
    for (opponent, score) in results {
        let (mu_j, phi_j) = (opponent.mu(), opponent.phi());
        let e = expected(mu_j, phi_j);
        inverse_v += g(phi_j).powi(2) * e * (1.0 - e);
        improvement += g(phi_j) * (score - e);
    }
    let v = 1.0 / inverse_v;
    let delta = v * improvement;
    let sigma = new_volatility(phi, sigma, v, delta, tau);
    // Steps 6 to 8.
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let new_phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let new_mu = mu + new_phi * new_phi * improvement;
    Rating {
        rating: new_mu * SCALE + 1500.0,
        deviation: (new_phi * SCALE).min(Rating::NEW.deviation),
        volatility: sigma,
    }
}

/// Step 5: the new volatility, the root of Glickman's f(x) found by the
/// Illinois algorithm.
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - d) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut upper_a = a;
    let mut upper_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_a, mut f_b) = (f(upper_a), f(upper_b));
    // Bounded: the bracket halves at least every other step; 100 steps are
    // far more than the tolerance needs.
    for _ in 0..100 {
        if (upper_b - upper_a).abs() <= EPSILON {
            break;
        }
        let c = upper_a + (upper_a - upper_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            upper_a = upper_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        upper_b = c;
        f_b = f_c;
    }
    (upper_a / 2.0).exp()
}

/// The new ratings of two players after a game between them, `score` being
/// the first player's.
pub fn rate_game(first: Rating, second: Rating, score: Score) -> (Rating, Rating) {
    (rate(first, &[(second, score)], TAU), rate(second, &[(first, 1.0 - score)], TAU))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(rating: f64, deviation: f64) -> Rating {
        Rating { rating, deviation, volatility: 0.06 }
    }

    /// Glickman's worked example: a 1500/200 player beats a 1400/30 player,
    /// loses to a 1550/100 and to a 1700/300 one, with τ = 0.5.
    #[test]
    fn the_worked_example_of_glickmans_paper() {
        let results = [(player(1400.0, 30.0), 1.0), (player(1550.0, 100.0), 0.0), (player(1700.0, 300.0), 0.0)];
        let after = rate(player(1500.0, 200.0), &results, 0.5);
        assert!((after.rating - 1464.06).abs() < 0.01, "rating {}", after.rating);
        assert!((after.deviation - 151.52).abs() < 0.01, "deviation {}", after.deviation);
        assert!((after.volatility - 0.05999).abs() < 0.00001, "volatility {}", after.volatility);
    }

    #[test]
    fn a_period_without_games_only_widens_the_deviation() {
        let after = rate(player(1500.0, 200.0), &[], 0.5);
        assert_eq!(after.rating, 1500.0);
        assert!((after.deviation - 200.27).abs() < 0.01, "deviation {}", after.deviation);
        assert_eq!(rate(Rating::NEW, &[], 0.5).deviation, 350.0);
    }

    #[test]
    fn a_game_moves_both_ratings_by_the_same_amount_between_equals() {
        let (winner, loser) = rate_game(Rating::NEW, Rating::NEW, 1.0);
        assert!(winner.rating > 1500.0 && loser.rating < 1500.0);
        assert!(((winner.rating - 1500.0) - (1500.0 - loser.rating)).abs() < 1e-9);
        assert!(winner.deviation < 350.0 && loser.deviation < 350.0);
        let (a, b) = rate_game(Rating::NEW, Rating::NEW, 0.5);
        assert!((a.rating - 1500.0).abs() < 1e-9 && (b.rating - 1500.0).abs() < 1e-9);
    }
}
