//! Hearts engine speed: random playouts (what the AI will run many times
//! per decision) and legal-move enumeration.
//!
//! `cargo bench --bench hearts`; throughput is reported in deals per second
//! for the playout benchmarks.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kozyr::cards::{Card, CardSet, Seat};
use kozyr::hearts::{Action, Deal, Event};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};

/// A uniformly random card of a non-empty set.
fn random_card<R: Rng>(set: CardSet, rng: &mut R) -> Card {
    let mut bits = set.bits();
    for _ in 0..rng.random_range(0..set.len()) {
        bits &= bits - 1;
    }
    CardSet::from_bits_truncate(bits)
        .first()
        .expect("a non-empty set")
}

/// Plays every remaining card of `deal` at random among the legal ones.
fn play_out<R: Rng>(deal: &mut Deal, rng: &mut R, events: &mut Vec<Event>) {
    while let Some(seat) = deal.to_act() {
        let card = random_card(deal.legal_plays(seat), rng);
        events.clear();
        let played = deal.apply_into(seat, Action::Play(card), events);
        debug_assert!(played.is_ok());
    }
}

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("hearts/playout");
    group.throughput(Throughput::Elements(1));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut events = Vec::with_capacity(16);
    let dealer = Seat::ALL[0];

    // The AI's case: copy a dealt position and play it to the end.
    let dealt = Deal::shuffled(&mut rng, dealer, 4).expect("deal 4 exists");
    group.bench_function("from_position", |b| {
        b.iter(|| {
            let mut deal = dealt;
            play_out(&mut deal, &mut rng, &mut events);
            black_box(deal.points_taken())
        })
    });

    // Shuffle, deal and play a no-pass deal.
    group.bench_function("shuffle_and_play", |b| {
        b.iter(|| {
            let mut deal = Deal::shuffled(&mut rng, dealer, 4).expect("deal 4 exists");
            play_out(&mut deal, &mut rng, &mut events);
            black_box(deal.points_taken())
        })
    });

    // Shuffle, deal, pass three random cards each, play.
    group.bench_function("shuffle_pass_and_play", |b| {
        b.iter(|| {
            let mut deal = Deal::shuffled(&mut rng, dealer, 1).expect("deal 1 exists");
            for seat in Seat::ALL {
                let mut left = deal.hand(seat);
                let mut pass = CardSet::EMPTY;
                for _ in 0..3 {
                    let c = random_card(left, &mut rng);
                    left.remove(c);
                    pass.insert(c);
                }
                events.clear();
                let passed = deal.apply_into(seat, Action::PassCards(pass), &mut events);
                debug_assert!(passed.is_ok());
            }
            play_out(&mut deal, &mut rng, &mut events);
            black_box(deal.points_taken())
        })
    });
    group.finish();
}

fn legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("hearts/legal");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut events = Vec::new();
    // A position in the middle of the fifth trick.
    let mut mid = Deal::shuffled(&mut rng, Seat::ALL[0], 4).expect("deal 4 exists");
    for _ in 0..18 {
        let seat = mid.to_act().expect("the deal is not over");
        let card = random_card(mid.legal_plays(seat), &mut rng);
        let _ = mid.apply_into(seat, Action::Play(card), &mut events);
    }
    let seat = mid.to_act().expect("the deal is not over");
    let mut out = Vec::with_capacity(300);
    group.bench_function("plays_bitset", |b| {
        b.iter(|| black_box(black_box(&mid).legal_plays(seat)))
    });
    group.bench_function("plays_actions_into", |b| {
        b.iter(|| {
            out.clear();
            black_box(&mid).legal_actions_into(seat, &mut out);
            black_box(out.len())
        })
    });
    let passing = Deal::shuffled(&mut rng, Seat::ALL[0], 1).expect("deal 1 exists");
    group.bench_function("passes_actions_into_286", |b| {
        b.iter(|| {
            out.clear();
            black_box(&passing).legal_actions_into(Seat::ALL[1], &mut out);
            black_box(out.len())
        })
    });
    group.finish();
}

criterion_group!(benches, playouts, legal_moves);
criterion_main!(benches);
