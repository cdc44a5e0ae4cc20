//! Kozel engine throughput: random playouts (deals per second) and the cost
//! of enumerating legal actions. Run with `cargo bench --bench engine`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kozyr::cards::Seat;
use kozyr::kozel::{Action, Deal, Deck};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::hint::black_box;

/// Plays one deal to its end with uniform random choices, reusing buffers
/// the way an AI playout would.
fn random_deal(
    rng: &mut Xoshiro256PlusPlus,
    legal: &mut Vec<Action>,
    events: &mut Vec<kozyr::kozel::Event>,
) -> u32 {
    let dealer = Seat::ALL[rng.random_range(0..4usize)];
    let mut deal = Deal::new(dealer, dealer.next(), Deck::shuffled(rng));
    while let Some(seat) = deal.to_act() {
        legal.clear();
        deal.legal_actions_into(seat, legal);
        let a = legal[rng.random_range(0..legal.len())];
        events.clear();
        let _ = deal.apply_into(seat, a, events);
    }
    deal.team_tricks()[0]
}

fn kozel(c: &mut Criterion) {
    let mut g = c.benchmark_group("kozel");
    g.throughput(Throughput::Elements(1));
    g.bench_function("random_deal", |b| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let (mut legal, mut events) = (Vec::with_capacity(64), Vec::with_capacity(64));
        b.iter(|| black_box(random_deal(&mut rng, &mut legal, &mut events)))
    });
    // A full hand answering a two-card lead: the widest answer enumeration.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut deal = Deal::new(Seat::ALL[3], Seat::ALL[0], Deck::shuffled(&mut rng));
    let leader = deal.to_act().unwrap();
    let lead = deal
        .legal_actions(leader)
        .into_iter()
        .max_by_key(|a| a.cards().len())
        .unwrap();
    deal.apply(leader, lead).unwrap();
    let answerer = deal.to_act().unwrap();
    let fresh = Deal::new(Seat::ALL[3], Seat::ALL[0], Deck::shuffled(&mut rng));
    g.throughput(Throughput::Elements(1));
    g.bench_function("legal_actions_lead", |b| {
        let mut v = Vec::with_capacity(64);
        b.iter(|| {
            v.clear();
            fresh.legal_actions_into(black_box(Seat::ALL[0]), &mut v);
            v.len()
        })
    });
    g.bench_function("legal_actions_answer", |b| {
        let mut v = Vec::with_capacity(64);
        b.iter(|| {
            v.clear();
            deal.legal_actions_into(black_box(answerer), &mut v);
            v.len()
        })
    });
    g.finish();
}

criterion_group!(benches, kozel);
criterion_main!(benches);
