//! Re-checks the deal records `kozyr simulate` writes with a small checker
//! of its own: it parses the JSON and applies the rules of `docs/RULES.md`
//! without calling any of the engine's rule code.

use std::collections::HashSet;

use kozyr::ai::AgentKind;
use kozyr::game::GameKind;
use kozyr::sim::{SimOptions, run};
use serde_json::Value;

const RANKS: &str = "6789JQKTA";

/// A card as (suit char, rank strength 0..9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct C(char, u8);

fn card(v: &Value) -> C {
    let s = v.as_str().expect("card is a string");
    let mut it = s.chars();
    let r = it.next().unwrap();
    let su = it.next().unwrap();
    assert!(it.next().is_none(), "card {s}");
    assert!("SHDC".contains(su), "suit of {s}");
    C(
        su,
        RANKS.find(r).unwrap_or_else(|| panic!("rank of {s}")) as u8,
    )
}

fn cards(v: &Value) -> Vec<C> {
    v.as_array().expect("card list").iter().map(card).collect()
}

fn points(c: C) -> u32 {
    [0, 0, 0, 0, 2, 3, 4, 10, 11][c.1 as usize]
}

fn beats(x: C, y: C, trump: char) -> bool {
    if x.0 == y.0 { x.1 > y.1 } else { x.0 == trump }
}

/// Tries every pairing of `mine` with `theirs`.
fn can_beat(mine: &[C], theirs: &[C], trump: char) -> bool {
    fn go(mine: &[C], theirs: &mut Vec<C>, trump: char) -> bool {
        let Some((&m, rest)) = mine.split_first() else {
            return true;
        };
        for i in 0..theirs.len() {
            if beats(m, theirs[i], trump) {
                let t = theirs.remove(i);
                let ok = go(rest, theirs, trump);
                theirs.insert(i, t);
                if ok {
                    return true;
                }
            }
        }
        false
    }
    mine.len() == theirs.len() && go(mine, &mut theirs.to_vec(), trump)
}

fn remove_all(hand: &mut Vec<C>, cs: &[C]) {
    for c in cs {
        let i = hand
            .iter()
            .position(|h| h == c)
            .unwrap_or_else(|| panic!("{c:?} not in hand {hand:?}"));
        hand.remove(i);
    }
}

fn one_suit(cs: &[C]) -> bool {
    !cs.is_empty() && cs.iter().all(|c| c.0 == cs[0].0)
}

#[derive(Default)]
pub(crate) struct Coverage {
    molodkas: usize,
    molodka_overrides: usize,
    multi_beats: usize,
    passes: usize,
    eggs: usize,
    goats_with_eggs: usize,
    six_point_defeats: usize,
    short_stock_draws: usize,
}

/// Checks one series' records in order; `complete`: the series was played
/// to its end (else none of its deals may end it).
pub(crate) fn check_series(records: &[Value], complete: bool, cov: &mut Coverage) {
    let mut series_defeat = [0u32; 2];
    let mut eggs_seen = false;
    let mut prev: Option<(usize, usize)> = None; // (dealer, last trick winner)
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["game"], "kozel");
        assert_eq!(
            r["deal"].as_u64().unwrap() as usize,
            i + 1,
            "deal numbers count from 1"
        );
        let dealer = r["dealer"].as_u64().unwrap() as usize;
        let first = r["first_leader"].as_u64().unwrap() as usize;
        match prev {
            None => assert_eq!(
                first,
                (dealer + 1) % 4,
                "first deal: left of the dealer leads"
            ),
            Some((d, w)) => {
                assert_eq!(dealer, (d + 1) % 4, "the dealer moves clockwise");
                assert_eq!(first, w, "last trick's winner leads the next deal");
            }
        }
        let mut hands: Vec<Vec<C>> = r["hands"].as_array().unwrap().iter().map(cards).collect();
        let stock = cards(&r["stock"]);
        let trump_card = card(&r["trump_card"]);
        let trump = trump_card.0;
        assert_eq!(hands.len(), 4);
        assert!(hands.iter().all(|h| h.len() == 4));
        assert_eq!(stock.len(), 20);
        assert!(
            stock.contains(&trump_card),
            "the revealed card stays in the stock"
        );
        let all: HashSet<C> = hands.iter().flatten().chain(&stock).copied().collect();
        assert_eq!(all.len(), 36, "36 different cards");

        let mut drawn = 0;
        let mut piles = [0u32; 2];
        let mut tricks = [0u32; 2];
        let mut leader = first;
        let mut lead_seat = first;
        let mut count = 0;
        let mut k = 0;
        let mut winning: (usize, Vec<C>) = (first, vec![]);
        let mut table: [Option<Vec<C>>; 4] = Default::default();
        let mut molodka: Option<usize> = None;
        let mut last_winner = None;
        let mut expect_draw: Option<(usize, usize)> = None; // (next seat, draws left)
        let dist = |from: usize, to: usize| (to + 4 - from) % 4;

        for e in r["events"].as_array().unwrap() {
            let kind = e["kind"].as_str().unwrap();
            if kind != "draw" {
                if let Some((_, left)) = expect_draw {
                    assert_eq!(left, 0, "draws missing before {e}");
                }
                expect_draw = None;
            }
            let seat = e["seat"].as_u64().map(|s| s as usize);
            let turn = (lead_seat + count) % 4;
            match kind {
                "lead" => {
                    let cs = cards(&e["cards"]);
                    assert_eq!((seat, count), (Some(leader), 0), "lead out of turn: {e}");
                    assert!(one_suit(&cs), "lead of one suit: {e}");
                    let s = leader;
                    assert!(
                        !(cs.len() == 4 && hands[s].len() == 4),
                        "a four-card lead is a molodka: {e}"
                    );
                    remove_all(&mut hands[s], &cs);
                    k = cs.len();
                    winning = (s, cs.clone());
                    table[s] = Some(cs);
                    count = 1;
                }
                "beat" | "pass" => {
                    let s = seat.unwrap();
                    let cs = cards(&e["cards"]);
                    assert!(count > 0 && s == turn, "answer out of turn: {e}");
                    assert_eq!(cs.len(), k, "answers match the lead's width: {e}");
                    remove_all(&mut hands[s], &cs);
                    if kind == "beat" {
                        assert!(
                            can_beat(&cs, &winning.1, trump),
                            "{e} does not beat {:?}",
                            winning.1
                        );
                        cov.multi_beats += usize::from(k > 1);
                        winning = (s, cs.clone());
                    } else {
                        cov.passes += 1;
                    }
                    table[s] = Some(cs);
                    count += 1;
                }
                "molodka" => {
                    let s = seat.unwrap();
                    let cs = cards(&e["cards"]);
                    let mut hand = hands[s].clone();
                    hand.sort_by_key(|c| (c.0, c.1));
                    let mut played = cs.clone();
                    played.sort_by_key(|c| (c.0, c.1));
                    assert_eq!(hand, played, "a molodka is the whole hand: {e}");
                    assert!(cs.len() == 4 && one_suit(&cs), "four of one suit: {e}");
                    if let Some(m) = molodka {
                        assert!(dist(leader, s) < dist(leader, m), "outranked molodka: {e}");
                        cov.molodka_overrides += 1;
                    }
                    for (t, slot) in table.iter_mut().enumerate() {
                        if let Some(back) = slot.take() {
                            hands[t].extend(back);
                        }
                    }
                    hands[s].clear();
                    molodka = Some(s);
                    lead_seat = s;
                    k = 4;
                    winning = (s, cs.clone());
                    table[s] = Some(cs);
                    count = 1;
                    cov.molodkas += 1;
                }
                "trick" => {
                    assert_eq!(count, 4, "a trick has four plays");
                    let w = e["winner"].as_u64().unwrap() as usize;
                    assert_eq!(w, winning.0, "the last beat takes the trick");
                    let mut on_table: Vec<C> =
                        table.iter_mut().flat_map(|t| t.take().unwrap()).collect();
                    let mut taken = cards(&e["cards"]);
                    on_table.sort_by_key(|c| (c.0, c.1));
                    taken.sort_by_key(|c| (c.0, c.1));
                    assert_eq!(on_table, taken, "the winner takes every card");
                    let p: u32 = taken.iter().map(|&c| points(c)).sum();
                    assert_eq!(e["points"].as_u64().unwrap() as u32, p);
                    piles[w % 2] += p;
                    tricks[w % 2] += 1;
                    let stock_left = 20 - drawn;
                    let draws = (4 * k).min(stock_left);
                    cov.short_stock_draws += usize::from(draws > 0 && draws < 4 * k);
                    expect_draw = Some((w, draws));
                    last_winner = Some(w);
                    leader = w;
                    lead_seat = w;
                    count = 0;
                    molodka = None;
                }
                "draw" => {
                    let (next, left) = expect_draw.expect("draws follow a trick");
                    assert!(left > 0, "too many draws");
                    assert_eq!(seat, Some(next), "draws go clockwise from the winner");
                    assert_eq!(card(&e["card"]), stock[drawn], "draws come off the top");
                    drawn += 1;
                    hands[next].push(stock[drawn - 1]);
                    assert!(hands[next].len() <= 4);
                    expect_draw = Some(((next + 1) % 4, left - 1));
                    if left == 1 {
                        let n = hands[0].len();
                        assert!(
                            hands.iter().all(|h| h.len() == n),
                            "hands equal after drawing"
                        );
                    }
                }
                other => panic!("unknown event kind {other}"),
            }
        }
        assert_eq!(drawn, 20, "the whole stock is drawn");
        assert!(
            hands.iter().all(|h| h.is_empty()),
            "every hand is played out"
        );
        assert_eq!(piles[0] + piles[1], 120);
        let pts = [
            r["team_points"][0].as_u64().unwrap() as u32,
            r["team_points"][1].as_u64().unwrap() as u32,
        ];
        assert_eq!(pts, piles);
        assert_eq!(r["team_tricks"], serde_json::json!(tricks));
        let eggs = pts[0] == 60;
        let mut defeat = [0u32; 2];
        if !eggs {
            let loser = if pts[0] < pts[1] { 0 } else { 1 };
            defeat[loser] = if tricks[loser] == 0 {
                6
            } else if pts[loser] <= 30 {
                4
            } else {
                2
            };
            cov.six_point_defeats += usize::from(defeat[loser] == 6);
        }
        cov.eggs += usize::from(eggs);
        assert_eq!(r["eggs"], eggs);
        assert_eq!(r["defeat_points"], serde_json::json!(defeat));
        eggs_seen |= eggs;
        series_defeat[0] += defeat[0];
        series_defeat[1] += defeat[1];
        assert_eq!(r["series_defeat_points"], serde_json::json!(series_defeat));
        let over = series_defeat.iter().any(|&d| d >= 12);
        assert_eq!(r["series_over"], over);
        assert_eq!(
            over,
            complete && i + 1 == records.len(),
            "a series ends exactly when a team reaches 12"
        );
        if over {
            let goat = if series_defeat[0] >= 12 { 0 } else { 1 };
            assert_eq!(r["goat"], goat);
            cov.goats_with_eggs += usize::from(eggs_seen);
        } else {
            assert!(r["goat"].is_null());
        }
        prev = Some((dealer, last_winner.expect("a deal has tricks")));
    }
}

#[test]
fn simulated_records_obey_every_rule() {
    let opts = SimOptions {
        game: GameKind::Kozel,
        series: 300,
        seed: 11,
        players: [AgentKind::Random; 4],
        options: Default::default(),
        table: "check".into(),
    };
    let mut out = Vec::new();
    let summary = run(&opts, &mut out).unwrap();
    let records: Vec<Value> = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(records.len() as u64, summary.deals);
    let mut cov = Coverage::default();
    let mut series_seen = 0;
    for n in 1..=300u64 {
        let series: Vec<Value> = records
            .iter()
            .filter(|r| r["series"] == n)
            .cloned()
            .collect();
        assert!(!series.is_empty(), "series {n} has deals");
        check_series(&series, true, &mut cov);
        series_seen += 1;
    }
    assert_eq!(series_seen, summary.series);
    // The random players reach the corners of the rules, or this test checks too little.
    assert!(
        cov.molodkas > 0 && cov.molodka_overrides > 0,
        "molodkas: {} / {}",
        cov.molodkas,
        cov.molodka_overrides
    );
    assert!(cov.multi_beats > 0 && cov.passes > 0);
    assert!(
        cov.eggs > 0 && cov.goats_with_eggs > 0,
        "eggs: {} / {}",
        cov.eggs,
        cov.goats_with_eggs
    );
    assert!(cov.six_point_defeats > 0 && cov.short_stock_draws > 0);
}

#[test]
fn same_arguments_same_bytes() {
    let opts = SimOptions {
        game: GameKind::Kozel,
        series: 20,
        seed: 99,
        players: [AgentKind::Random; 4],
        options: Default::default(),
        table: "t".into(),
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    run(&opts, &mut a).unwrap();
    run(&opts, &mut b).unwrap();
    assert_eq!(a, b);
    let other = SimOptions { seed: 100, ..opts };
    let mut c = Vec::new();
    run(&other, &mut c).unwrap();
    assert_ne!(a, c);
}
