//! The one seedable random generator of the project: the levels' noise,
//! random playouts, MCTS, random openings, tests and fuzzing all draw from
//! [`Rng`], so that a seed means the same thing everywhere. Secrets (session
//! tokens, ids) take the operating system's randomness instead.

use rand_core::{RngCore, SeedableRng};

/// wyrand: a 64-bit generator that passes BigCrush and costs one multiply.
/// Not for anything secret.
///
/// It implements `rand_core`'s [`RngCore`] and [`SeedableRng`], so `rand`'s
/// distributions and slice helpers work on it;
/// `Rng::seed_from_u64(seed)` is `Rng::new(seed)`.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xA076_1D64_78BD_642F);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xE703_7ED1_A0B4_28DB) as u128);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift, without the rejection
    /// step: the bias is below n / 2^64). `n` must be more than 0.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `[0, 1)`, from the top 53 bits of one draw (the same
    /// number `rand`'s `random::<f64>()` makes of it).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl RngCore for Rng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        (Rng::next_u64(self) >> 32) as u32
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        Rng::next_u64(self)
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        rand_core::impls::fill_bytes_via_next(self, dst)
    }
}

impl SeedableRng for Rng {
    type Seed = [u8; 8];

    fn from_seed(seed: [u8; 8]) -> Self {
        Rng::new(u64::from_le_bytes(seed))
    }

    /// The same generator as [`Rng::new`] (the default would first stretch
    /// the seed through another generator).
    fn seed_from_u64(seed: u64) -> Self {
        Rng::new(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;
    use rand::seq::IndexedRandom;

    #[test]
    fn the_stream_of_a_seed_stays_put() {
        // Playout figures, random openings and `monte bench playouts` rest
        // on these numbers.
        let mut rng = Rng::new(1);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(first, [0xe30e_0edd_6689_da4b, 0x8ec8_011b_d2c7_d448, 0x10af_2476_031f_daf6]);
    }

    #[test]
    fn every_way_of_seeding_gives_the_same_stream() {
        let mut a = Rng::new(42);
        let mut b = Rng::seed_from_u64(42);
        let mut c = Rng::from_seed(42u64.to_le_bytes());
        for _ in 0..8 {
            let x = a.next_u64();
            assert_eq!(x, RngCore::next_u64(&mut b));
            assert_eq!(x, c.next_u64());
        }
    }

    #[test]
    fn rand_draws_from_the_same_stream() {
        let mut ours = Rng::new(7);
        let mut theirs = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(ours.unit(), theirs.random::<f64>());
        }
        let mut rng = Rng::new(9);
        let items = [1, 2, 3, 4, 5];
        assert!(items.choose(&mut rng).is_some());
        assert!((0..1000).map(|_| rng.random_range(0..5u32)).all(|x| x < 5));
        let mut bytes = [0u8; 13];
        rng.fill_bytes(&mut bytes);
        assert!(bytes.iter().any(|&b| b != 0));
    }

    #[test]
    fn below_stays_below() {
        let mut rng = Rng::new(3);
        for n in 1..200 {
            assert!(rng.below(n) < n);
        }
    }
}
