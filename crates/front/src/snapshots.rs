//! Whole screens, every one in every language, as snapshots: what a
//! person sees, word for word and button for button. After an intended
//! change, `UPDATE_EXPECT=1 cargo test --lib front::snapshots` rewrites
//! them; review the diff like any other.
//!
//! The notation: `**bold**`, `_italic_`, `` `mono` ``; each button row on
//! its own line as `[label | data]`, `data` being the encoded press (or
//! `onboard seat N` for a button that opens the bot's private chat); a
//! name or title from a user in `⁅…⁆`, its Unicode bidi isolate (U+2068
//! … U+2069).

use expect_test::{Expect, expect};

use super::action::Press;
use super::present::{self, HandInfo, HandLayout, Occupant, SettingsInfo, TableInfo};
use super::screen::{ButtonTarget, Screen};
use super::{games, outputs};
use kozyr_cards::{CardSet, PerSeat, Seat};
use kozyr_game::{Game, GameAction, GameEvent, GameKind, GameOptions, GameView, Milestone};
use kozyr_i18n::Lang;
use kozyr_table::{
    Announcement, ChatKey, Phase, Player, SeatState, Settings, TableId, TableView, Timestamp,
    UserId,
};

fn show(s: &Screen) -> String {
    let mut out = String::new();
    for span in s.rich().spans() {
        let mut marks = String::new();
        if span.style.bold {
            marks.push_str("**");
        }
        if span.style.italic {
            marks.push('_');
        }
        if span.style.mono {
            marks.push('`');
        }
        let closing: String = marks.chars().rev().collect();
        out.push_str(&format!("{marks}{}{closing}", span.text));
    }
    for row in &s.keyboard.rows {
        out.push('\n');
        let buttons: Vec<String> = row
            .iter()
            .map(|b| match b.target {
                ButtonTarget::Press(p) => format!("[{} | {}]", b.label, p.encode()),
                ButtonTarget::Onboard { seat, .. } => {
                    format!("[{} | onboard seat {}]", b.label, seat.index() + 1)
                }
                ButtonTarget::LiveView { table } => {
                    format!("[{} | live view {}]", b.label, table.0)
                }
                ButtonTarget::LiveLink { table } => {
                    format!("[{} | live link {}]", b.label, table.0)
                }
            })
            .collect();
        out.push_str(&buttons.join(" "));
    }
    // Made visible: invisible in the source, they could not be reviewed.
    out.replace(FSI, "⁅").replace(PDI, "⁆")
}

/// The bidi isolate around every user-supplied name.
const FSI: char = '\u{2068}';
const PDI: char = '\u{2069}';

/// The screen in every language, one after the other.
fn check(screen: impl Fn(Lang) -> Screen, expect: Expect) {
    let all: Vec<String> = Lang::ALL
        .iter()
        .map(|&l| format!("── {}\n{}", l.code(), show(&screen(l))))
        .collect();
    expect.assert_eq(&(all.join("\n") + "\n"));
}

fn seat(i: u8) -> Seat {
    Seat::new(i).unwrap()
}

const NAMES: [&str; 4] = ["Alice", "Boris", "Carla", "Dan"];

fn player(i: usize) -> Player {
    Player::new(UserId::Telegram(1000 + i as u64), NAMES[i], Lang::En)
}

/// Four people, or with `ai` an AI player at seat 3 (the fourth).
fn info(kind: GameKind, version: u64, ai: bool) -> TableInfo {
    TableInfo {
        table: TableId(7),
        version,
        game: kind,
        seats: PerSeat::from_fn(|s| {
            Some(if ai && s.index() == 3 {
                Occupant::Ai { number: 1 }
            } else {
                Occupant::human(NAMES[s.index()])
            })
        }),
        turn_allowance: None,
        last_trick: None,
        last_deal: None,
    }
}

/// Plays safe moves until `stop` says so for the events of a move.
fn play_until(game: &mut Game, mut stop: impl FnMut(&[GameEvent]) -> bool) -> Vec<GameEvent> {
    for _ in 0..10_000 {
        let s = game.awaiting()[0];
        let a = game.safe_action(s).unwrap();
        let events = game.apply(s, a).unwrap();
        if stop(&events) {
            return events;
        }
    }
    panic!("never stopped");
}

fn moves(game: &mut Game, n: usize) {
    for _ in 0..n {
        let s = game.awaiting()[0];
        let a = game.safe_action(s).unwrap();
        game.apply(s, a).unwrap();
    }
}

/// A hand as the Mini App draws it: cards selected before a move.
fn hand_screen(lang: Lang, info: &TableInfo, game: &Game, s: Seat, sel: CardSet) -> Screen {
    hand_in(lang, info, game, s, sel, HandLayout::MiniApp)
}

fn hand_in(
    lang: Lang,
    info: &TableInfo,
    game: &Game,
    s: Seat,
    sel: CardSet,
    layout: HandLayout,
) -> Screen {
    let h = HandInfo {
        table: info,
        group_title: "Friday <cards>",
        seat: s,
        selection: sel,
        layout,
    };
    games::hand(lang, &h, &game.view(s), &game.legal_actions(s))
}

#[test]
fn lobbies() {
    let mut t = info(GameKind::Kozel, 3, true);
    t.seats[seat(1)] = None;
    t.seats[seat(2)] = Some(Occupant::Human {
        name: "Carla".into(),
        reachable: false,
    });
    check(
        |l| present::lobby(l, &t, "Alice"),
        expect![[r#"
            ── en
            **Kozel** — a new table
            Opened by ⁅Alice⁆

            **Team 1**
            1. ⁅Alice⁆
            3. ⁅Carla⁆
            **Team 2**
            2. — free —
            4. 🤖 AI 1
            Partners sit opposite each other: seats 1 and 3, seats 2 and 4.

            Waiting for one more player.
            ⚠️ ⁅Carla⁆, I can't message you yet: press your button below, then Start.
            [Join | t7.3.j]
            [Seat 2 | t7.3.s1]
            [Leave | t7.3.q] [Add AI player | t7.3.a]
            [⁅Carla⁆: open my chat | onboard seat 3]
            ── ru
            **Козёл** — новый стол
            Создатель стола: ⁅Alice⁆

            **Команда 1**
            1. ⁅Alice⁆
            3. ⁅Carla⁆
            **Команда 2**
            2. — свободно —
            4. 🤖 ИИ 1
            Партнёры сидят напротив: места 1 и 3, места 2 и 4.

            Ждём ещё 1 игрока.
            ⚠️ ⁅Carla⁆, я пока не могу вам написать: нажмите свою кнопку ниже, затем «Запустить».
            [Сесть | t7.3.j]
            [Место 2 | t7.3.s1]
            [Встать | t7.3.q] [Добавить ИИ | t7.3.a]
            [⁅Carla⁆: открыть мой чат | onboard seat 3]
            ── pt
            **Kozel** — mesa nova
            Aberta por ⁅Alice⁆

            **Dupla 1**
            1. ⁅Alice⁆
            3. ⁅Carla⁆
            **Dupla 2**
            2. — livre —
            4. 🤖 Robô 1
            Os parceiros sentam frente a frente: lugares 1 e 3, lugares 2 e 4.

            Falta 1 jogador.
            ⚠️ ⁅Carla⁆, ainda não consigo escrever para você: toque no seu botão abaixo e depois em Iniciar.
            [Sentar | t7.3.j]
            [Lugar 2 | t7.3.s1]
            [Sair da mesa | t7.3.q] [Pôr um robô | t7.3.a]
            [⁅Carla⁆: abrir meu chat | onboard seat 3]
            ── ro
            **Kozel** — masă nouă
            Deschisă de ⁅Alice⁆

            **Echipa 1**
            1. ⁅Alice⁆
            3. ⁅Carla⁆
            **Echipa 2**
            2. — liber —
            4. 🤖 Robot 1
            Partenerii stau față în față: locurile 1 și 3, locurile 2 și 4.

            Mai așteptăm 1 jucător.
            ⚠️ ⁅Carla⁆, încă nu-ți pot scrie: apasă butonul tău de mai jos, apoi Pornește.
            [Mă așez | t7.3.j]
            [Locul 2 | t7.3.s1]
            [Mă ridic | t7.3.q] [Adaugă un robot | t7.3.a]
            [⁅Carla⁆: deschide chatul meu | onboard seat 3]
        "#]],
    );
    let full = info(GameKind::Hearts, 5, false);
    check(
        |l| present::lobby(l, &full, "Alice"),
        expect![[r#"
            ── en
            **Hearts** — a new table
            Opened by ⁅Alice⁆

            1. ⁅Alice⁆
            2. ⁅Boris⁆
            3. ⁅Carla⁆
            4. ⁅Dan⁆

            All seats are taken: the creator or an admin can start.
            [Leave | t7.5.q] [Start | t7.5.g]
            ── ru
            **Червы** — новый стол
            Создатель стола: ⁅Alice⁆

            1. ⁅Alice⁆
            2. ⁅Boris⁆
            3. ⁅Carla⁆
            4. ⁅Dan⁆

            Все места заняты: создатель или админ может начинать.
            [Встать | t7.5.q] [Начать | t7.5.g]
            ── pt
            **Copas** — mesa nova
            Aberta por ⁅Alice⁆

            1. ⁅Alice⁆
            2. ⁅Boris⁆
            3. ⁅Carla⁆
            4. ⁅Dan⁆

            Todos os lugares estão ocupados: o criador ou um admin pode começar.
            [Sair da mesa | t7.5.q] [Começar | t7.5.g]
            ── ro
            **Inimi** — masă nouă
            Deschisă de ⁅Alice⁆

            1. ⁅Alice⁆
            2. ⁅Boris⁆
            3. ⁅Carla⁆
            4. ⁅Dan⁆

            Toate locurile sunt ocupate: creatorul sau un administrator poate începe.
            [Mă ridic | t7.5.q] [Începe | t7.5.g]
        "#]],
    );
}

#[test]
fn menus_and_prompts() {
    check(
        |l| present::game_menu(l, 0),
        expect![[r#"
        ── en
        Which game shall we play?
        [Kozel | c0.nk] [Hearts | c0.nh]
        ── ru
        Во что играем?
        [Козёл | c0.nk] [Червы | c0.nh]
        ── pt
        Que jogo vamos jogar?
        [Kozel | c0.nk] [Copas | c0.nh]
        ── ro
        Ce jucăm?
        [Kozel | c0.nk] [Inimi | c0.nh]
    "#]],
    );
    let s = SettingsInfo {
        version: 4,
        lang: Lang::Ru,
        turn_timer: Some(60),
        hearts_end_score: 100,
        shoot_the_moon: true,
        any_heart_breaks: false,
    };
    check(
        |l| present::settings(l, &s),
        expect![[r#"
            ── en
            **Settings**
            Language: Русский
            Turn timer: 60 s
            Hearts ends at 100 points
            Shoot the moon: on
            Hearts are broken only by a heart played off-suit
            [English | c4.Len] [✓ Русский | c4.Lru] [Português | c4.Lpt] [Română | c4.Lro]
            [30 s | c4.Tu] [✓ 60 s | c4.T1o] [120 s | c4.T3c] [No limit | c4.T-]
            [50 points | c4.E1e] [✓ 100 points | c4.E2s]
            [Shoot the moon: on | c4.M0]
            [Hearts break: off-suit only | c4.B1]
            ── ru
            **Настройки**
            Язык: Русский
            Таймер хода: 60 с
            Червы идут до 100 очков
            Выстрел в луну: включён
            Червы вскрывает только черва, сыгранная не в масть
            [English | c4.Len] [✓ Русский | c4.Lru] [Português | c4.Lpt] [Română | c4.Lro]
            [30 с | c4.Tu] [✓ 60 с | c4.T1o] [120 с | c4.T3c] [Без ограничения | c4.T-]
            [50 очков | c4.E1e] [✓ 100 очков | c4.E2s]
            [Выстрел в луну: вкл. | c4.M0]
            [Вскрытие червей: только не в масть | c4.B1]
            ── pt
            **Configurações**
            Idioma: Русский
            Tempo por jogada: 60 s
            Copas termina em 100 pontos
            Acertar a lua: ligado
            As copas só são quebradas por uma copas jogada fora do naipe
            [English | c4.Len] [✓ Русский | c4.Lru] [Português | c4.Lpt] [Română | c4.Lro]
            [30 s | c4.Tu] [✓ 60 s | c4.T1o] [120 s | c4.T3c] [Sem limite | c4.T-]
            [50 pontos | c4.E1e] [✓ 100 pontos | c4.E2s]
            [Acertar a lua: ligado | c4.M0]
            [Quebrar copas: só fora do naipe | c4.B1]
            ── ro
            **Setări**
            Limba: Русский
            Timp de mutare: 60 s
            Inimi se joacă până la 100 de puncte
            Nimerește luna: activat
            Inimile sunt sparte doar de o inimă jucată pe altă culoare
            [English | c4.Len] [✓ Русский | c4.Lru] [Português | c4.Lpt] [Română | c4.Lro]
            [30 s | c4.Tu] [✓ 60 s | c4.T1o] [120 s | c4.T3c] [Nelimitat | c4.T-]
            [50 de puncte | c4.E1e] [✓ 100 de puncte | c4.E2s]
            [Nimerește luna: da | c4.M0]
            [Inimi sparte: pe altă culoare | c4.B1]
        "#]],
    );
    check(
        |l| present::language_menu(l, 0),
        expect![[r#"
        ── en
        Choose the chat's language:
        [✓ English | c0.Len] [Русский | c0.Lru] [Português | c0.Lpt] [Română | c0.Lro]
        ── ru
        Выберите язык чата:
        [English | c0.Len] [✓ Русский | c0.Lru] [Português | c0.Lpt] [Română | c0.Lro]
        ── pt
        Escolha o idioma do chat:
        [English | c0.Len] [Русский | c0.Lru] [✓ Português | c0.Lpt] [Română | c0.Lro]
        ── ro
        Alege limba chatului:
        [English | c0.Len] [Русский | c0.Lru] [Português | c0.Lpt] [✓ Română | c0.Lro]
    "#]],
    );
    let t = info(GameKind::Kozel, 9, false);
    check(
        |l| present::stop_prompt(l, &t, 1002),
        expect![[r#"
            ── en
            Stop this table? The game in progress will be lost.
            [Yes, stop it | t7.9.z1ru] [No, keep playing | t7.9.z0ru]
            ── ru
            Закрыть стол? Текущая игра пропадёт.
            [Да, закрыть | t7.9.z1ru] [Нет, играем дальше | t7.9.z0ru]
            ── pt
            Fechar esta mesa? O jogo em andamento será perdido.
            [Sim, fechar | t7.9.z1ru] [Não, continuar | t7.9.z0ru]
            ── ro
            Închizi masa? Jocul în desfășurare se pierde.
            [Da, închide | t7.9.z1ru] [Nu, jucăm mai departe | t7.9.z0ru]
        "#]],
    );
}

/// What each menu shows once its job is done: no buttons, and for the
/// settings, a language and a kept table, what is in force now.
#[test]
fn menus_once_closed() {
    let s = SettingsInfo {
        version: 0,
        lang: Lang::En,
        turn_timer: Some(30),
        hearts_end_score: 100,
        shoot_the_moon: true,
        any_heart_breaks: false,
    };
    check(
        |l| present::settings_saved(l, &SettingsInfo { lang: l, ..s }),
        expect![[r#"
            ── en
            **Settings**
            Language: English
            Turn timer: 30 s
            Hearts ends at 100 points
            Shoot the moon: on
            Hearts are broken only by a heart played off-suit
            ── ru
            **Настройки**
            Язык: Русский
            Таймер хода: 30 с
            Червы идут до 100 очков
            Выстрел в луну: включён
            Червы вскрывает только черва, сыгранная не в масть
            ── pt
            **Configurações**
            Idioma: Português
            Tempo por jogada: 30 s
            Copas termina em 100 pontos
            Acertar a lua: ligado
            As copas só são quebradas por uma copas jogada fora do naipe
            ── ro
            **Setări**
            Limba: Română
            Timp de mutare: 30 s
            Inimi se joacă până la 100 de puncte
            Nimerește luna: activat
            Inimile sunt sparte doar de o inimă jucată pe altă culoare
        "#]],
    );
    check(
        present::language_set,
        expect![[r#"
        ── en
        Language: English
        ── ru
        Язык: Русский
        ── pt
        Idioma: Português
        ── ro
        Limba: Română
    "#]],
    );
    check(
        present::stop_kept,
        expect![[r#"
        ── en
        The table was not stopped: the game goes on.
        ── ru
        Стол не закрыт: игра продолжается.
        ── pt
        A mesa não foi fechada: o jogo continua.
        ── ro
        Masa nu s-a închis: jocul continuă.
    "#]],
    );
}

#[test]
fn kozel_table_and_hands() {
    let mut game = Game::new(GameKind::Kozel, GameOptions::default(), 11);
    moves(&mut game, 3);
    let mut t = info(GameKind::Kozel, 40, true);
    t.turn_allowance = Some(std::time::Duration::from_secs(60));
    check(
        |l| games::table(l, &t, &game.view(seat(0))),
        expect![[r#"
            ── en
            **Kozel** · deal 1
            Trump: A♥ (hearts) · Stock: 20 cards
            Turn: **⁅Carla⁆** · ⏳ 60 s a move

            🤖 AI 1: **9♦**
            ⁅Alice⁆: 🂠 (discarded)
            ⁅Boris⁆: 🂠 (discarded)

            ⁅Alice⁆ and ⁅Carla⁆: 0 tricks · ⁅Boris⁆ and 🤖 AI 1: 0 tricks
            Series (at 12 defeat points a team is the goat):
            ⁅Alice⁆ and ⁅Carla⁆: 0
            ⁅Boris⁆ and 🤖 AI 1: 0
            ── ru
            **Козёл** · сдача 1
            Козырь: A♥ (червы) · В колоде: 20 карт
            Ход: **⁅Carla⁆** · ⏳ 60 с на ход

            🤖 ИИ 1: **9♦**
            ⁅Alice⁆: 🂠 (сброшено)
            ⁅Boris⁆: 🂠 (сброшено)

            ⁅Alice⁆ и ⁅Carla⁆: 0 взяток · ⁅Boris⁆ и 🤖 ИИ 1: 0 взяток
            Серия (с 12 штрафными очками команда — козёл):
            ⁅Alice⁆ и ⁅Carla⁆: 0
            ⁅Boris⁆ и 🤖 ИИ 1: 0
            ── pt
            **Kozel** · rodada 1
            Trunfo: A♥ (copas) · Monte: 20 cartas
            Vez de **⁅Carla⁆** · ⏳ 60 s por jogada

            🤖 Robô 1: **9♦**
            ⁅Alice⁆: 🂠 (descartadas)
            ⁅Boris⁆: 🂠 (descartadas)

            ⁅Alice⁆ e ⁅Carla⁆: 0 vazas · ⁅Boris⁆ e 🤖 Robô 1: 0 vazas
            Partida (com 12 pontos de derrota a dupla é o bode):
            ⁅Alice⁆ e ⁅Carla⁆: 0
            ⁅Boris⁆ e 🤖 Robô 1: 0
            ── ro
            **Kozel** · runda 1
            Atu: A♥ (inimă roșie) · Pachet: 20 de cărți
            E rândul: **⁅Carla⁆** · ⏳ 60 s pe mutare

            🤖 Robot 1: **9♦**
            ⁅Alice⁆: 🂠 (aruncate)
            ⁅Boris⁆: 🂠 (aruncate)

            ⁅Alice⁆ și ⁅Carla⁆: 0 levate · ⁅Boris⁆ și 🤖 Robot 1: 0 levate
            Seria (la 12 puncte de înfrângere echipa e capra):
            ⁅Alice⁆ și ⁅Carla⁆: 0
            ⁅Boris⁆ și 🤖 Robot 1: 0
        "#]],
    );
    let s = game.awaiting()[0];
    let GameView::Kozel(v) = game.view(s) else {
        unreachable!()
    };
    let first = v.deal.hand.first().unwrap();
    check(
        |l| hand_screen(l, &t, &game, s, CardSet::single(first)),
        expect![[r#"
            ── en
            **Kozel** · ⁅Friday <cards>⁆
            Trump: A♥ (hearts) · Stock: 20 cards
            On the table:
            🤖 AI 1: **9♦**
            ⁅Alice⁆: 🂠 (discarded)
            ⁅Boris⁆: 🂠 (discarded)

            👉 **Your turn**: beat or discard 1 card.
            ⏳ You have 60 s a move.
            Selected: 7♠
            Your selection does not beat; you can discard it.
            Can beat: K♦
            [✓7♠ | t7.14.c7S] [10♠ | t7.14.cTS] [K♦ | t7.14.cKD] [K♣ | t7.14.cKC]
            [Discard | t7.14.p20] [Clear | t7.14.x]
            ── ru
            **Козёл** · ⁅Friday <cards>⁆
            Козырь: A♥ (червы) · В колоде: 20 карт
            На столе:
            🤖 ИИ 1: **9♦**
            ⁅Alice⁆: 🂠 (сброшено)
            ⁅Boris⁆: 🂠 (сброшено)

            👉 **Ваш ход**: побейте или сбросьте 1 карту.
            ⏳ На каждый ход — 60 с.
            Выбрано: 7♠
            Выбранные карты не бьют; их можно сбросить.
            Можно побить: K♦
            [✓7♠ | t7.14.c7S] [10♠ | t7.14.cTS] [K♦ | t7.14.cKD] [K♣ | t7.14.cKC]
            [Сбросить | t7.14.p20] [Отменить выбор | t7.14.x]
            ── pt
            **Kozel** · ⁅Friday <cards>⁆
            Trunfo: A♥ (copas) · Monte: 20 cartas
            Na mesa:
            🤖 Robô 1: **9♦**
            ⁅Alice⁆: 🂠 (descartadas)
            ⁅Boris⁆: 🂠 (descartadas)

            👉 **Sua vez**: bata ou descarte 1 carta.
            ⏳ Você tem 60 s por jogada.
            Escolhidas: 7♠
            Sua escolha não bate; você pode descartá-la.
            Dá para bater com: K♦
            [✓7♠ | t7.14.c7S] [10♠ | t7.14.cTS] [K♦ | t7.14.cKD] [K♣ | t7.14.cKC]
            [Descartar | t7.14.p20] [Limpar | t7.14.x]
            ── ro
            **Kozel** · ⁅Friday <cards>⁆
            Atu: A♥ (inimă roșie) · Pachet: 20 de cărți
            Pe masă:
            🤖 Robot 1: **9♦**
            ⁅Alice⁆: 🂠 (aruncate)
            ⁅Boris⁆: 🂠 (aruncate)

            👉 **E rândul tău**: bate sau aruncă 1 carte.
            ⏳ Ai 60 s pe mutare.
            Alese: 7♠
            Alegerea ta nu bate; o poți arunca.
            Poți bate cu: K♦
            [✓7♠ | t7.14.c7S] [10♠ | t7.14.cTS] [K♦ | t7.14.cKD] [K♣ | t7.14.cKC]
            [Aruncă | t7.14.p20] [Șterge alegerea | t7.14.x]
        "#]],
    );
    // The same answer in a chat: one tap per move, and a selection made
    // before (in the Mini App) does not matter.
    check(
        |l| {
            hand_in(
                l,
                &t,
                &game,
                s,
                CardSet::single(first),
                HandLayout::PrivateChat,
            )
        },
        expect![[r#"
            ── en
            **Kozel** · ⁅Friday <cards>⁆
            Trump: A♥ (hearts) · Stock: 20 cards
            On the table:
            🤖 AI 1: **9♦**
            ⁅Alice⁆: 🂠 (discarded)
            ⁅Boris⁆: 🂠 (discarded)

            👉 **Your turn**: beat or discard 1 card.
            ⏳ You have 60 s a move.
            Tap a card: ⚔ beats with it, ↓ discards it face down.
            Can beat: K♦
            [⚔K♦ | t7.14.b80000000000]
            [↓7♠ | t7.14.p20] [↓10♠ | t7.14.p100] [↓K♦ | t7.14.p80000000000] [↓K♣ | t7.14.p800000000000000]
            ── ru
            **Козёл** · ⁅Friday <cards>⁆
            Козырь: A♥ (червы) · В колоде: 20 карт
            На столе:
            🤖 ИИ 1: **9♦**
            ⁅Alice⁆: 🂠 (сброшено)
            ⁅Boris⁆: 🂠 (сброшено)

            👉 **Ваш ход**: побейте или сбросьте 1 карту.
            ⏳ На каждый ход — 60 с.
            Нажмите на карту: ⚔ — побить ею, ↓ — сбросить её рубашкой вверх.
            Можно побить: K♦
            [⚔K♦ | t7.14.b80000000000]
            [↓7♠ | t7.14.p20] [↓10♠ | t7.14.p100] [↓K♦ | t7.14.p80000000000] [↓K♣ | t7.14.p800000000000000]
            ── pt
            **Kozel** · ⁅Friday <cards>⁆
            Trunfo: A♥ (copas) · Monte: 20 cartas
            Na mesa:
            🤖 Robô 1: **9♦**
            ⁅Alice⁆: 🂠 (descartadas)
            ⁅Boris⁆: 🂠 (descartadas)

            👉 **Sua vez**: bata ou descarte 1 carta.
            ⏳ Você tem 60 s por jogada.
            Toque em uma carta: ⚔ bate com ela, ↓ a descarta virada para baixo.
            Dá para bater com: K♦
            [⚔K♦ | t7.14.b80000000000]
            [↓7♠ | t7.14.p20] [↓10♠ | t7.14.p100] [↓K♦ | t7.14.p80000000000] [↓K♣ | t7.14.p800000000000000]
            ── ro
            **Kozel** · ⁅Friday <cards>⁆
            Atu: A♥ (inimă roșie) · Pachet: 20 de cărți
            Pe masă:
            🤖 Robot 1: **9♦**
            ⁅Alice⁆: 🂠 (aruncate)
            ⁅Boris⁆: 🂠 (aruncate)

            👉 **E rândul tău**: bate sau aruncă 1 carte.
            ⏳ Ai 60 s pe mutare.
            Atinge o carte: ⚔ bate cu ea, ↓ o aruncă cu fața în jos.
            Poți bate cu: K♦
            [⚔K♦ | t7.14.b80000000000]
            [↓7♠ | t7.14.p20] [↓10♠ | t7.14.p100] [↓K♦ | t7.14.p80000000000] [↓K♣ | t7.14.p800000000000000]
        "#]],
    );
    // A seat that waits: its cards, no moves.
    let waiting = Seat::ALL.into_iter().find(|x| *x != s).unwrap();
    check(
        |l| hand_screen(l, &t, &game, waiting, CardSet::EMPTY),
        expect![[r#"
            ── en
            **Kozel** · ⁅Friday <cards>⁆
            Trump: A♥ (hearts) · Stock: 20 cards
            On the table:
            🤖 AI 1: **9♦**
            ⁅Alice⁆: 🂠 (discarded)
            ⁅Boris⁆: 🂠 (discarded)
            You discarded face down: 6♦

            Waiting for ⁅Carla⁆.
            Tap cards to select them.
            [8♦ | t7.14.c8D] [6♣ | t7.14.c6C] [9♥★ | t7.14.c9H]
            ── ru
            **Козёл** · ⁅Friday <cards>⁆
            Козырь: A♥ (червы) · В колоде: 20 карт
            На столе:
            🤖 ИИ 1: **9♦**
            ⁅Alice⁆: 🂠 (сброшено)
            ⁅Boris⁆: 🂠 (сброшено)
            Вы сбросили рубашкой вверх: 6♦

            Ждём: ⁅Carla⁆.
            Нажимайте на карты, чтобы выбрать их.
            [8♦ | t7.14.c8D] [6♣ | t7.14.c6C] [9♥★ | t7.14.c9H]
            ── pt
            **Kozel** · ⁅Friday <cards>⁆
            Trunfo: A♥ (copas) · Monte: 20 cartas
            Na mesa:
            🤖 Robô 1: **9♦**
            ⁅Alice⁆: 🂠 (descartadas)
            ⁅Boris⁆: 🂠 (descartadas)
            Você descartou viradas para baixo: 6♦

            Esperando ⁅Carla⁆.
            Toque nas cartas para escolhê-las.
            [8♦ | t7.14.c8D] [6♣ | t7.14.c6C] [9♥★ | t7.14.c9H]
            ── ro
            **Kozel** · ⁅Friday <cards>⁆
            Atu: A♥ (inimă roșie) · Pachet: 20 de cărți
            Pe masă:
            🤖 Robot 1: **9♦**
            ⁅Alice⁆: 🂠 (aruncate)
            ⁅Boris⁆: 🂠 (aruncate)
            Ai aruncat cu fața în jos: 6♦

            Așteptăm: ⁅Carla⁆.
            Atinge cărțile ca să le alegi.
            [8♦ | t7.14.c8D] [6♣ | t7.14.c6C] [9♥★ | t7.14.c9H]
        "#]],
    );
    // The same seat under the table on Discord: its cards and the last
    // trick, not what the table message above shows, and picks that name
    // no version.
    check(
        |l| {
            hand_in(
                l,
                &t,
                &game,
                waiting,
                CardSet::EMPTY,
                HandLayout::UnderTable,
            )
        },
        expect![[r#"
            ── en
            **Kozel** · ⁅Friday <cards>⁆
            Trump: A♥ (hearts) · Stock: 20 cards
            You discarded face down: 6♦

            Tap cards to select them.
            [8♦ | t7.0.c8D] [6♣ | t7.0.c6C] [9♥★ | t7.0.c9H]
            ── ru
            **Козёл** · ⁅Friday <cards>⁆
            Козырь: A♥ (червы) · В колоде: 20 карт
            Вы сбросили рубашкой вверх: 6♦

            Нажимайте на карты, чтобы выбрать их.
            [8♦ | t7.0.c8D] [6♣ | t7.0.c6C] [9♥★ | t7.0.c9H]
            ── pt
            **Kozel** · ⁅Friday <cards>⁆
            Trunfo: A♥ (copas) · Monte: 20 cartas
            Você descartou viradas para baixo: 6♦

            Toque nas cartas para escolhê-las.
            [8♦ | t7.0.c8D] [6♣ | t7.0.c6C] [9♥★ | t7.0.c9H]
            ── ro
            **Kozel** · ⁅Friday <cards>⁆
            Atu: A♥ (inimă roșie) · Pachet: 20 de cărți
            Ai aruncat cu fața în jos: 6♦

            Atinge cărțile ca să le alegi.
            [8♦ | t7.0.c8D] [6♣ | t7.0.c6C] [9♥★ | t7.0.c9H]
        "#]],
    );
}

#[test]
fn hearts_table_and_hands() {
    let mut game = Game::new(GameKind::Hearts, GameOptions::default(), 5);
    let t = info(GameKind::Hearts, 12, false);
    check(
        |l| hand_screen(l, &t, &game, seat(1), CardSet::EMPTY),
        expect![[r#"
            ── en
            **Hearts** · ⁅Friday <cards>⁆

            Choose three cards to pass to the left.
            Tap cards to select them.
            [3♣ | t7.c.c3C] [5♣ | t7.c.c5C] [10♣ | t7.c.cTC] [3♦ | t7.c.c3D] [5♦ | t7.c.c5D]
            [9♦ | t7.c.c9D] [Q♦ | t7.c.cQD] [6♠ | t7.c.c6S] [8♠ | t7.c.c8S] [9♠ | t7.c.c9S]
            [J♠ | t7.c.cJS] [5♥ | t7.c.c5H] [J♥ | t7.c.cJH]
            [Pass 3 | t7.c.h0]
            ── ru
            **Червы** · ⁅Friday <cards>⁆

            Выберите три карты, чтобы передать налево.
            Нажимайте на карты, чтобы выбрать их.
            [3♣ | t7.c.c3C] [5♣ | t7.c.c5C] [10♣ | t7.c.cTC] [3♦ | t7.c.c3D] [5♦ | t7.c.c5D]
            [9♦ | t7.c.c9D] [Q♦ | t7.c.cQD] [6♠ | t7.c.c6S] [8♠ | t7.c.c8S] [9♠ | t7.c.c9S]
            [J♠ | t7.c.cJS] [5♥ | t7.c.c5H] [J♥ | t7.c.cJH]
            [Передать 3 | t7.c.h0]
            ── pt
            **Copas** · ⁅Friday <cards>⁆

            Escolha três cartas para passar à esquerda.
            Toque nas cartas para escolhê-las.
            [3♣ | t7.c.c3C] [5♣ | t7.c.c5C] [10♣ | t7.c.cTC] [3♦ | t7.c.c3D] [5♦ | t7.c.c5D]
            [9♦ | t7.c.c9D] [Q♦ | t7.c.cQD] [6♠ | t7.c.c6S] [8♠ | t7.c.c8S] [9♠ | t7.c.c9S]
            [J♠ | t7.c.cJS] [5♥ | t7.c.c5H] [J♥ | t7.c.cJH]
            [Passar 3 | t7.c.h0]
            ── ro
            **Inimi** · ⁅Friday <cards>⁆

            Alege trei cărți de pasat la stânga.
            Atinge cărțile ca să le alegi.
            [3♣ | t7.c.c3C] [5♣ | t7.c.c5C] [10♣ | t7.c.cTC] [3♦ | t7.c.c3D] [5♦ | t7.c.c5D]
            [9♦ | t7.c.c9D] [Q♦ | t7.c.cQD] [6♠ | t7.c.c6S] [8♠ | t7.c.c8S] [9♠ | t7.c.c9S]
            [J♠ | t7.c.cJS] [5♥ | t7.c.c5H] [J♥ | t7.c.cJH]
            [Pasează 3 | t7.c.h0]
        "#]],
    );
    // Past the passing and the first trick.
    play_until(&mut game, |e| {
        e.iter().any(|e| e.milestone() == Some(Milestone::Trick))
    });
    moves(&mut game, 2);
    check(
        |l| games::table(l, &t, &game.view(seat(0))),
        expect![[r#"
            ── en
            **Hearts** · deal 1
            Turn: **⁅Alice⁆**

            ⁅Carla⁆: 2♦
            ⁅Dan⁆: 4♦

            Totals (the game ends at 100):
            ⁅Alice⁆: 0 points
            ⁅Boris⁆: 0 points
            ⁅Carla⁆: 0 points
            ⁅Dan⁆: 0 points
            ── ru
            **Червы** · сдача 1
            Ход: **⁅Alice⁆**

            ⁅Carla⁆: 2♦
            ⁅Dan⁆: 4♦

            Итоги (игра до 100):
            ⁅Alice⁆: 0 очков
            ⁅Boris⁆: 0 очков
            ⁅Carla⁆: 0 очков
            ⁅Dan⁆: 0 очков
            ── pt
            **Copas** · rodada 1
            Vez de **⁅Alice⁆**

            ⁅Carla⁆: 2♦
            ⁅Dan⁆: 4♦

            Totais (o jogo termina em 100):
            ⁅Alice⁆: 0 pontos
            ⁅Boris⁆: 0 pontos
            ⁅Carla⁆: 0 pontos
            ⁅Dan⁆: 0 pontos
            ── ro
            **Inimi** · runda 1
            E rândul: **⁅Alice⁆**

            ⁅Carla⁆: 2♦
            ⁅Dan⁆: 4♦

            Totaluri (jocul se termină la 100):
            ⁅Alice⁆: 0 puncte
            ⁅Boris⁆: 0 puncte
            ⁅Carla⁆: 0 puncte
            ⁅Dan⁆: 0 puncte
        "#]],
    );
    let s = game.awaiting()[0];
    check(
        |l| hand_screen(l, &t, &game, s, CardSet::EMPTY),
        expect![[r#"
            ── en
            **Hearts** · ⁅Friday <cards>⁆
            On the table:
            ⁅Carla⁆: 2♦
            ⁅Dan⁆: 4♦

            👉 **Your turn**: tap a card to play it.
            Cards marked ✗ cannot be played now.
            [✗8♣ | t7.c.y8C] [✗J♣ | t7.c.yJC] [✗Q♣ | t7.c.yQC] [✗K♣ | t7.c.yKC] [✗A♣ | t7.c.yAC]
            [6♦ | t7.c.y6D] [8♦ | t7.c.y8D] [✗2♠ | t7.c.y2S] [✗3♠ | t7.c.y3S] [✗4♠ | t7.c.y4S]
            [✗Q♠ | t7.c.yQS] [✗4♥ | t7.c.y4H]
            ── ru
            **Червы** · ⁅Friday <cards>⁆
            На столе:
            ⁅Carla⁆: 2♦
            ⁅Dan⁆: 4♦

            👉 **Ваш ход**: нажмите на карту, чтобы сыграть её.
            Карты с пометкой ✗ сейчас сыграть нельзя.
            [✗8♣ | t7.c.y8C] [✗J♣ | t7.c.yJC] [✗Q♣ | t7.c.yQC] [✗K♣ | t7.c.yKC] [✗A♣ | t7.c.yAC]
            [6♦ | t7.c.y6D] [8♦ | t7.c.y8D] [✗2♠ | t7.c.y2S] [✗3♠ | t7.c.y3S] [✗4♠ | t7.c.y4S]
            [✗Q♠ | t7.c.yQS] [✗4♥ | t7.c.y4H]
            ── pt
            **Copas** · ⁅Friday <cards>⁆
            Na mesa:
            ⁅Carla⁆: 2♦
            ⁅Dan⁆: 4♦

            👉 **Sua vez**: toque numa carta para jogá-la.
            As cartas marcadas com ✗ não podem ser jogadas agora.
            [✗8♣ | t7.c.y8C] [✗J♣ | t7.c.yJC] [✗Q♣ | t7.c.yQC] [✗K♣ | t7.c.yKC] [✗A♣ | t7.c.yAC]
            [6♦ | t7.c.y6D] [8♦ | t7.c.y8D] [✗2♠ | t7.c.y2S] [✗3♠ | t7.c.y3S] [✗4♠ | t7.c.y4S]
            [✗Q♠ | t7.c.yQS] [✗4♥ | t7.c.y4H]
            ── ro
            **Inimi** · ⁅Friday <cards>⁆
            Pe masă:
            ⁅Carla⁆: 2♦
            ⁅Dan⁆: 4♦

            👉 **E rândul tău**: atinge o carte ca s-o joci.
            Cărțile marcate cu ✗ nu pot fi jucate acum.
            [✗8♣ | t7.c.y8C] [✗J♣ | t7.c.yJC] [✗Q♣ | t7.c.yQC] [✗K♣ | t7.c.yKC] [✗A♣ | t7.c.yAC]
            [6♦ | t7.c.y6D] [8♦ | t7.c.y8D] [✗2♠ | t7.c.y2S] [✗3♠ | t7.c.y3S] [✗4♠ | t7.c.y4S]
            [✗Q♠ | t7.c.yQS] [✗4♥ | t7.c.y4H]
        "#]],
    );
}

/// The announcement a game event makes, as the chat gets it.
fn announced(kind: GameKind, game: &Game, t: &TableInfo, event: &GameEvent, l: Lang) -> Screen {
    super::games::front_of(kind)
        .announcement(l, t, event, Some(&game.public_view()), &Settings::default())
        .unwrap()
}

#[test]
fn results() {
    let t = info(GameKind::Kozel, 80, true);
    let mut game = Game::new(GameKind::Kozel, GameOptions::default(), 11);
    let deal = play_until(&mut game, |e| {
        e.iter().any(|e| e.milestone() == Some(Milestone::Deal))
    });
    let deal = deal
        .into_iter()
        .find(|e| e.milestone() == Some(Milestone::Deal))
        .unwrap();
    check(
        |l| announced(GameKind::Kozel, &game, &t, &deal, l),
        expect![[r#"
            ── en
            **Deal 1 is over**
            ⁅Alice⁆ and ⁅Carla⁆: 0 points, 0 tricks
            ⁅Boris⁆ and 🤖 AI 1: 120 points, 9 tricks
            ⁅Alice⁆ and ⁅Carla⁆ did not take a single trick.
            ⁅Alice⁆ and ⁅Carla⁆ get 6 defeat points.
            Series: ⁅Alice⁆ and ⁅Carla⁆ 6 : 0 ⁅Boris⁆ and 🤖 AI 1
            ── ru
            **Сдача 1 окончена**
            ⁅Alice⁆ и ⁅Carla⁆: 0 очков, 0 взяток
            ⁅Boris⁆ и 🤖 ИИ 1: 120 очков, 9 взяток
            ⁅Alice⁆ и ⁅Carla⁆ не взяли ни одной взятки.
            ⁅Alice⁆ и ⁅Carla⁆ получают 6 штрафных очков.
            Серия: ⁅Alice⁆ и ⁅Carla⁆ 6 : 0 ⁅Boris⁆ и 🤖 ИИ 1
            ── pt
            **Fim da rodada 1**
            ⁅Alice⁆ e ⁅Carla⁆: 0 pontos, 0 vazas
            ⁅Boris⁆ e 🤖 Robô 1: 120 pontos, 9 vazas
            ⁅Alice⁆ e ⁅Carla⁆ não levaram nenhuma vaza.
            ⁅Alice⁆ e ⁅Carla⁆ levam 6 pontos de derrota.
            Partida: ⁅Alice⁆ e ⁅Carla⁆ 6 : 0 ⁅Boris⁆ e 🤖 Robô 1
            ── ro
            **Runda 1 s-a terminat**
            ⁅Alice⁆ și ⁅Carla⁆: 0 puncte, 0 levate
            ⁅Boris⁆ și 🤖 Robot 1: 120 de puncte, 9 levate
            ⁅Alice⁆ și ⁅Carla⁆ n-au luat nicio levată.
            ⁅Alice⁆ și ⁅Carla⁆ primesc 6 puncte de înfrângere.
            Seria: ⁅Alice⁆ și ⁅Carla⁆ 6 : 0 ⁅Boris⁆ și 🤖 Robot 1
        "#]],
    );
    let over = play_until(&mut game, |e| {
        e.iter().any(|e| e.milestone() == Some(Milestone::Series))
    });
    let over = over
        .into_iter()
        .find(|e| e.milestone() == Some(Milestone::Series))
        .unwrap();
    check(
        |l| announced(GameKind::Kozel, &game, &t, &over, l),
        expect![[r#"
            ── en
            **The series is over**
            Series: ⁅Alice⁆ and ⁅Carla⁆ 12 : 0 ⁅Boris⁆ and 🤖 AI 1
            🐐 **⁅Alice⁆ and ⁅Carla⁆** are the goat!
            ── ru
            **Серия окончена**
            Серия: ⁅Alice⁆ и ⁅Carla⁆ 12 : 0 ⁅Boris⁆ и 🤖 ИИ 1
            🐐 **⁅Alice⁆ и ⁅Carla⁆** — козлы!
            ── pt
            **Fim da partida**
            Partida: ⁅Alice⁆ e ⁅Carla⁆ 12 : 0 ⁅Boris⁆ e 🤖 Robô 1
            🐐 **⁅Alice⁆ e ⁅Carla⁆** são o bode!
            ── ro
            **Seria s-a terminat**
            Seria: ⁅Alice⁆ și ⁅Carla⁆ 12 : 0 ⁅Boris⁆ și 🤖 Robot 1
            🐐 **⁅Alice⁆ și ⁅Carla⁆** sunt capra!
        "#]],
    );

    let t = info(GameKind::Hearts, 80, false);
    let mut game = Game::new(GameKind::Hearts, GameOptions::default(), 5);
    let deal = play_until(&mut game, |e| {
        e.iter().any(|e| e.milestone() == Some(Milestone::Deal))
    });
    let deal = deal
        .into_iter()
        .find(|e| e.milestone() == Some(Milestone::Deal))
        .unwrap();
    check(
        |l| announced(GameKind::Hearts, &game, &t, &deal, l),
        expect![[r#"
            ── en
            **Deal 1 is over**
            ⁅Alice⁆: 6 points this deal
            ⁅Boris⁆: 3 points this deal
            ⁅Carla⁆: 4 points this deal
            ⁅Dan⁆: 13 points this deal

            Totals (the game ends at 100):
            ⁅Alice⁆: 6 points
            ⁅Boris⁆: 3 points
            ⁅Carla⁆: 4 points
            ⁅Dan⁆: 13 points
            ── ru
            **Сдача 1 окончена**
            ⁅Alice⁆: 6 очков за сдачу
            ⁅Boris⁆: 3 очка за сдачу
            ⁅Carla⁆: 4 очка за сдачу
            ⁅Dan⁆: 13 очков за сдачу

            Итоги (игра до 100):
            ⁅Alice⁆: 6 очков
            ⁅Boris⁆: 3 очка
            ⁅Carla⁆: 4 очка
            ⁅Dan⁆: 13 очков
            ── pt
            **Fim da rodada 1**
            ⁅Alice⁆: 6 pontos nesta rodada
            ⁅Boris⁆: 3 pontos nesta rodada
            ⁅Carla⁆: 4 pontos nesta rodada
            ⁅Dan⁆: 13 pontos nesta rodada

            Totais (o jogo termina em 100):
            ⁅Alice⁆: 6 pontos
            ⁅Boris⁆: 3 pontos
            ⁅Carla⁆: 4 pontos
            ⁅Dan⁆: 13 pontos
            ── ro
            **Runda 1 s-a terminat**
            ⁅Alice⁆: 6 puncte în această rundă
            ⁅Boris⁆: 3 puncte în această rundă
            ⁅Carla⁆: 4 puncte în această rundă
            ⁅Dan⁆: 13 puncte în această rundă

            Totaluri (jocul se termină la 100):
            ⁅Alice⁆: 6 puncte
            ⁅Boris⁆: 3 puncte
            ⁅Carla⁆: 4 puncte
            ⁅Dan⁆: 13 puncte
        "#]],
    );
    let over = play_until(&mut game, |e| {
        e.iter().any(|e| e.milestone() == Some(Milestone::Series))
    });
    let over = over
        .into_iter()
        .find(|e| e.milestone() == Some(Milestone::Series))
        .unwrap();
    check(
        |l| announced(GameKind::Hearts, &game, &t, &over, l),
        expect![[r#"
            ── en
            **Game over**
            1. ⁅Alice⁆ — 48 points
            2. ⁅Carla⁆ — 55 points
            3. ⁅Dan⁆ — 68 points
            4. ⁅Boris⁆ — 115 points
            🏆 **⁅Alice⁆** wins!
            ── ru
            **Игра окончена**
            1. ⁅Alice⁆ — 48 очков
            2. ⁅Carla⁆ — 55 очков
            3. ⁅Dan⁆ — 68 очков
            4. ⁅Boris⁆ — 115 очков
            🏆 Побеждает **⁅Alice⁆**!
            ── pt
            **Fim de jogo**
            1. ⁅Alice⁆ — 48 pontos
            2. ⁅Carla⁆ — 55 pontos
            3. ⁅Dan⁆ — 68 pontos
            4. ⁅Boris⁆ — 115 pontos
            🏆 **⁅Alice⁆** venceu!
            ── ro
            **Jocul s-a terminat**
            1. ⁅Alice⁆ — 48 de puncte
            2. ⁅Carla⁆ — 55 de puncte
            3. ⁅Dan⁆ — 68 de puncte
            4. ⁅Boris⁆ — 115 puncte
            🏆 Câștigă **⁅Alice⁆**!
        "#]],
    );
}

/// A Kozel table in play with an AI player at the fourth seat.
fn table_view(lang: Lang, game: &Game) -> TableView {
    TableView {
        id: TableId(7),
        chat: ChatKey::Telegram(-100),
        title: "Friday".into(),
        kind: GameKind::Kozel,
        phase: Phase::Playing,
        version: 40,
        creator: player(0).id,
        settings: Settings {
            lang,
            ..Settings::default()
        },
        seats: PerSeat::from_fn(|s| match s.index() {
            3 => SeatState::Ai,
            i => SeatState::Person {
                player: player(i),
                away: false,
            },
        }),
        series_no: 1,
        awaiting: game.awaiting(),
        deadline: Some(Timestamp::from_millis(60_000)),
        last_trick: None,
        last_deal: None,
        game: Some(game.public_view()),
    }
}

/// The words that depend on where a person's cards are: a private chat
/// (Telegram) or a message only they see behind "My hand" (Discord). Each
/// screen as Telegram says it, then as Discord does; and the texts that
/// are the same everywhere, so name neither.
#[test]
fn words_follow_where_the_hands_are() {
    use super::HandPlace;
    use kozyr_i18n::{Args, key, tr, tr_html};
    let game = &Game::new(GameKind::Kozel, GameOptions::default(), 11);
    /// The screen on Telegram, a `·` line, then on Discord.
    fn both(screen: impl Fn(Lang, &ChatKey) -> String) -> impl Fn(Lang) -> Screen {
        move |l| {
            let lines: Vec<String> = [ChatKey::Telegram(-100), ChatKey::Discord(7)]
                .iter()
                .map(|chat| screen(l, chat))
                .collect();
            Screen::text(lines.join("\n·\n"))
        }
    }
    check(
        both(|l, chat| {
            let v = TableView {
                chat: chat.clone(),
                ..table_view(l, game)
            };
            let info = outputs::table_info(&v, &|_| false);
            let a = Announcement::SeriesStarted { series_no: 1 };
            outputs::announcement_screen(&v, &info, &a, &|_| None)
                .unwrap()
                .text
        }),
        expect![[r#"
            ── en
            **Kozel begins!** Your cards are in your private chat with me.
            ·
            **Kozel begins!** Press “My hand” to see your cards: only you see them.
            ── ru
            **Козёл: игра началась!** Ваши карты — в личном чате со мной.
            ·
            **Козёл: игра началась!** Нажмите «Мои карты», чтобы увидеть свои карты: их видите только вы.
            ── pt
            **Kozel: o jogo começou!** Suas cartas estão no seu chat privado comigo.
            ·
            **Kozel: o jogo começou!** Toque em “Minha mão” para ver suas cartas: só você as vê.
            ── ro
            **Kozel: jocul începe!** Cărțile tale sunt în chatul privat cu mine.
            ·
            **Kozel: jocul începe!** Apasă „Mâna mea” ca să-ți vezi cărțile: doar tu le vezi.
        "#]],
    );
    check(
        both(|l, chat| tr_html(l, HandPlace::of(chat).help_group(), &Args::new())),
        expect![[r#"
            ── en
            **Kozel and Hearts for four**
            /new — open a table and choose the game (/kozel, /hearts for short)
            Sit down with the buttons, add AI players for empty seats, then Start.
            Your cards come in a private message from me: tap cards to select them, then Lead, Beat or Discard.
            /rules — the rules · /score — this table · /stats — leaderboard
            /settings — language and turn timer (admins) · /stop — end the table
            ·
            **Kozel and Hearts for four**
            /new — open a table and choose the game (/kozel, /hearts for short)
            Sit down with the buttons, add AI players for empty seats, then Start.
            Press “My hand” under the table to see your cards — only you see them: choose cards, then Lead, Beat or Discard.
            /rules — the rules · /score — this table · /stats — leaderboard
            /settings — language and turn timer (admins) · /stop — end the table
            ── ru
            **Козёл и Червы на четверых**
            /new — открыть стол и выбрать игру (коротко: /kozel, /hearts)
            Садитесь кнопками, на пустые места можно посадить ИИ, затем «Начать».
            Карты придут вам в личные сообщения: нажимайте на карты, чтобы выбрать, затем «Зайти», «Бить» или «Сбросить».
            /rules — правила · /score — счёт стола · /stats — рейтинг
            /settings — язык и таймер (админы) · /stop — закрыть стол
            ·
            **Козёл и Червы на четверых**
            /new — открыть стол и выбрать игру (коротко: /kozel, /hearts)
            Садитесь кнопками, на пустые места можно посадить ИИ, затем «Начать».
            Нажмите «Мои карты» под столом, чтобы увидеть свои карты — их видите только вы: выберите карты, затем «Зайти», «Бить» или «Сбросить».
            /rules — правила · /score — счёт стола · /stats — рейтинг
            /settings — язык и таймер (админы) · /stop — закрыть стол
            ── pt
            **Kozel e Copas para quatro**
            /new — abre uma mesa e escolhe o jogo (atalhos: /kozel, /hearts)
            Sente-se com os botões, ponha robôs nos lugares vazios e toque em Começar.
            Suas cartas chegam numa mensagem privada minha: toque nas cartas para escolhê-las e depois em Abrir, Bater ou Descartar.
            /rules — regras · /score — placar · /stats — classificação
            /settings — idioma e tempo (admins) · /stop — fechar a mesa
            ·
            **Kozel e Copas para quatro**
            /new — abre uma mesa e escolhe o jogo (atalhos: /kozel, /hearts)
            Sente-se com os botões, ponha robôs nos lugares vazios e toque em Começar.
            Toque em “Minha mão” embaixo da mesa para ver suas cartas — só você as vê: escolha as cartas e depois toque em Abrir, Bater ou Descartar.
            /rules — regras · /score — placar · /stats — classificação
            /settings — idioma e tempo (admins) · /stop — fechar a mesa
            ── ro
            **Kozel și Inimi în patru**
            /new — deschide o masă și alege jocul (pe scurt: /kozel, /hearts)
            Așază-te cu butoanele, pune roboți pe locurile libere, apoi Începe.
            Cărțile îți vin de la mine într-un mesaj privat: atinge cărțile ca să le alegi, apoi Deschide, Bate sau Aruncă.
            /rules — regulile · /score — scorul · /stats — clasamentul
            /settings — limba și timpul (administratori) · /stop — închide masa
            ·
            **Kozel și Inimi în patru**
            /new — deschide o masă și alege jocul (pe scurt: /kozel, /hearts)
            Așază-te cu butoanele, pune roboți pe locurile libere, apoi Începe.
            Apasă „Mâna mea” sub masă ca să-ți vezi cărțile — doar tu le vezi: alege cărțile, apoi Deschide, Bate sau Aruncă.
            /rules — regulile · /score — scorul · /stats — clasamentul
            /settings — limba și timpul (administratori) · /stop — închide masa
        "#]],
    );
    check(
        both(|l, chat| tr_html(l, HandPlace::of(chat).help_private(), &Args::new())),
        expect![[r#"
            ── en
            **Hi! I host Kozel and Hearts in group chats.**
            Add me to a group and send /new there. Your cards will come here, in this chat.
            ·
            **Hi! I host Kozel and Hearts in server channels.**
            Add me to a server and send /new in a channel. Your cards are there too, behind the table's “My hand” button: only you see them.
            ── ru
            **Привет! Я провожу Козла и Червы в групповых чатах.**
            Добавьте меня в группу и отправьте там /new. Ваши карты будут приходить сюда.
            ·
            **Привет! Я провожу Козла и Червы в каналах серверов.**
            Добавьте меня на сервер и отправьте /new в канале. Ваши карты будут там же, под кнопкой стола «Мои карты»: их видите только вы.
            ── pt
            **Olá! Eu organizo partidas de Kozel e Copas em grupos.**
            Adicione-me a um grupo e envie /new lá. Suas cartas vão chegar aqui, neste chat.
            ·
            **Olá! Eu organizo partidas de Kozel e Copas em canais de servidores.**
            Adicione-me a um servidor e envie /new num canal. Suas cartas ficam lá também, no botão “Minha mão” da mesa: só você as vê.
            ── ro
            **Salut! Organizez Kozel și Inimi în grupuri.**
            Adaugă-mă într-un grup și trimite acolo /new. Cărțile tale vor veni aici.
            ·
            **Salut! Organizez Kozel și Inimi în canalele serverelor.**
            Adaugă-mă pe un server și trimite /new într-un canal. Cărțile tale sunt tot acolo, sub butonul „Mâna mea” al mesei: doar tu le vezi.
        "#]],
    );
    check(
        both(|l, chat| {
            let args = Args::new()
                .text("group", present::clean_name("Friday"))
                .num("seat", 2);
            tr_html(l, HandPlace::of(chat).seated(), &args)
        }),
        expect![[r#"
            ── en
            You are seated at seat 2 in **⁅Friday⁆**. Your cards will come here.
            ·
            You are seated at seat 2 in **⁅Friday⁆**. Press “My hand” under the table to see your cards.
            ── ru
            Вы сели на место 2 в **⁅Friday⁆**. Карты будут приходить сюда.
            ·
            Вы сели на место 2 в **⁅Friday⁆**. Нажмите «Мои карты» под столом, чтобы увидеть свои карты.
            ── pt
            Você está no lugar 2 em **⁅Friday⁆**. Suas cartas vão chegar aqui.
            ·
            Você está no lugar 2 em **⁅Friday⁆**. Toque em “Minha mão” embaixo da mesa para ver suas cartas.
            ── ro
            Stai pe locul 2 în **⁅Friday⁆**. Cărțile îți vor veni aici.
            ·
            Stai pe locul 2 în **⁅Friday⁆**. Apasă „Mâna mea” sub masă ca să-ți vezi cărțile.
        "#]],
    );
    check(
        |l| {
            let plain = [
                key::ERR_ADMIN_ONLY,
                key::ERR_GROUP_ONLY,
                key::ERR_NOT_YOUR_QUESTION,
                key::ERR_OTHER_CHAT,
            ]
            .map(|k| kozyr_i18n::escape_html(&tr(l, k, &Args::new())));
            let told = tr_html(
                l,
                key::TOLD_IN_GROUP,
                &Args::new().text("name", present::clean_name("Ann")),
            );
            let from = tr_html(
                l,
                key::TOLD_FROM,
                &Args::new().text("group", present::clean_name("Friday")),
            );
            Screen::text(format!("{}\n{told}\n{from}", plain.join("\n")))
        },
        expect![[r#"
            ── en
            Only the table's creator or an admin can do that.
            This works in the chat where you play, not here.
            This is not your question: only the person who asked can answer it.
            This button belongs to a table in another chat: use it there.
            ⁅Ann⁆, I can't write to you in private (open my chat and press Start), so I answer here:
            In **⁅Friday⁆**:
            ── ru
            Это может только создатель стола или администратор.
            Это работает в чате, где вы играете, а не здесь.
            Это не ваш вопрос: ответить может только тот, кто спросил.
            Эта кнопка от стола в другом чате: нажмите её там.
            ⁅Ann⁆, я не могу написать вам в личные сообщения (откройте мой чат и нажмите «Запустить»), поэтому отвечаю здесь:
            В группе **⁅Friday⁆**:
            ── pt
            Só o criador da mesa ou um admin pode fazer isso.
            Isto funciona no chat onde vocês jogam, não aqui.
            Esta pergunta não é sua: só quem perguntou pode responder.
            Este botão é de uma mesa em outro chat: use-o lá.
            ⁅Ann⁆, não consigo escrever para você no privado (abra meu chat e toque em Iniciar), então respondo aqui:
            No grupo **⁅Friday⁆**:
            ── ro
            Doar creatorul mesei sau un administrator poate face asta.
            Asta funcționează în chatul unde jucați, nu aici.
            Nu e întrebarea ta: doar cine a întrebat poate răspunde.
            Butonul acesta e al unei mese din alt chat: folosește-l acolo.
            ⁅Ann⁆, nu-ți pot scrie în privat (deschide chatul meu și apasă Pornește), așa că răspund aici:
            În grupul **⁅Friday⁆**:
        "#]],
    );
}

#[test]
fn score_names_ai_players_as_the_table_does() {
    let mut game = Game::new(GameKind::Kozel, GameOptions::default(), 11);
    moves(&mut game, 2);
    check(
        |l| {
            let v = table_view(l, &game);
            let info = outputs::table_info(&v, &|_| false);
            outputs::score_screen(&v, &info).unwrap()
        },
        expect![[r#"
            ── en
            **Kozel** · deal 1
            Trump: A♥ (hearts) · Stock: 20 cards
            Turn: **⁅Boris⁆** · ⏳ 60 s a move

            🤖 AI 1: **9♦**
            ⁅Alice⁆: 🂠 (discarded)

            ⁅Alice⁆ and ⁅Carla⁆: 0 tricks · ⁅Boris⁆ and 🤖 AI 1: 0 tricks
            Series (at 12 defeat points a team is the goat):
            ⁅Alice⁆ and ⁅Carla⁆: 0
            ⁅Boris⁆ and 🤖 AI 1: 0
            ── ru
            **Козёл** · сдача 1
            Козырь: A♥ (червы) · В колоде: 20 карт
            Ход: **⁅Boris⁆** · ⏳ 60 с на ход

            🤖 ИИ 1: **9♦**
            ⁅Alice⁆: 🂠 (сброшено)

            ⁅Alice⁆ и ⁅Carla⁆: 0 взяток · ⁅Boris⁆ и 🤖 ИИ 1: 0 взяток
            Серия (с 12 штрафными очками команда — козёл):
            ⁅Alice⁆ и ⁅Carla⁆: 0
            ⁅Boris⁆ и 🤖 ИИ 1: 0
            ── pt
            **Kozel** · rodada 1
            Trunfo: A♥ (copas) · Monte: 20 cartas
            Vez de **⁅Boris⁆** · ⏳ 60 s por jogada

            🤖 Robô 1: **9♦**
            ⁅Alice⁆: 🂠 (descartadas)

            ⁅Alice⁆ e ⁅Carla⁆: 0 vazas · ⁅Boris⁆ e 🤖 Robô 1: 0 vazas
            Partida (com 12 pontos de derrota a dupla é o bode):
            ⁅Alice⁆ e ⁅Carla⁆: 0
            ⁅Boris⁆ e 🤖 Robô 1: 0
            ── ro
            **Kozel** · runda 1
            Atu: A♥ (inimă roșie) · Pachet: 20 de cărți
            E rândul: **⁅Boris⁆** · ⏳ 60 s pe mutare

            🤖 Robot 1: **9♦**
            ⁅Alice⁆: 🂠 (aruncate)

            ⁅Alice⁆ și ⁅Carla⁆: 0 levate · ⁅Boris⁆ și 🤖 Robot 1: 0 levate
            Seria (la 12 puncte de înfrângere echipa e capra):
            ⁅Alice⁆ și ⁅Carla⁆: 0
            ⁅Boris⁆ și 🤖 Robot 1: 0
        "#]],
    );
}

#[test]
fn announcements_and_reminders() {
    let game = &Game::new(GameKind::Kozel, GameOptions::default(), 11);
    let said = |a: Announcement| {
        move |l: Lang| {
            let v = table_view(l, game);
            let info = outputs::table_info(&v, &|_| false);
            outputs::announcement_screen(&v, &info, &a, &|u| {
                (*u == UserId::Telegram(9)).then(|| "Admin Eve".to_owned())
            })
            .unwrap()
        }
    };
    check(
        said(Announcement::SeriesStarted { series_no: 1 }),
        expect![[r#"
            ── en
            **Kozel begins!** Your cards are in your private chat with me.
            ── ru
            **Козёл: игра началась!** Ваши карты — в личном чате со мной.
            ── pt
            **Kozel: o jogo começou!** Suas cartas estão no seu chat privado comigo.
            ── ro
            **Kozel: jocul începe!** Cărțile tale sunt în chatul privat cu mine.
        "#]],
    );
    let first = game.awaiting()[0];
    let action = game.safe_action(first).unwrap();
    check(
        said(Announcement::AutoPlayed {
            seat: first,
            action,
        }),
        expect![[r#"
            ── en
            ⌛ 🤖 AI 1 ran out of time; a safe move was played for them.
            ── ru
            ⌛ 🤖 ИИ 1: время вышло, сделан безопасный ход.
            ── pt
            ⌛ 🤖 Robô 1: o tempo acabou, e foi feita uma jogada segura.
            ── ro
            ⌛ 🤖 Robot 1: timpul s-a terminat; s-a făcut o mutare sigură.
        "#]],
    );
    check(
        said(Announcement::HandedToAi {
            seat: seat(1),
            player: player(1),
            unreachable: false,
        }),
        expect![[r#"
            ── en
            🤖 ⁅Boris⁆ missed 3 turns in a row; an AI player takes over until they come back.
            ── ru
            🤖 ⁅Boris⁆: пропущено 3 хода подряд. Пока игрок не вернётся, на этом месте играет ИИ.
            ── pt
            🤖 ⁅Boris⁆: 3 vezes seguidas sem jogar; um robô joga neste lugar até a volta.
            ── ro
            🤖 ⁅Boris⁆: 3 mutări ratate la rând; un robot joacă pe acest loc până la întoarcere.
        "#]],
    );
    check(
        said(Announcement::HandedToAi {
            seat: seat(1),
            player: player(1),
            unreachable: true,
        }),
        expect![[r#"
            ── en
            🤖 I cannot write to ⁅Boris⁆ any more; an AI player takes the seat until they write to me again.
            ── ru
            🤖 ⁅Boris⁆: я больше не могу писать вам в личные сообщения. Пока вы не напишете мне, на вашем месте играет ИИ.
            ── pt
            🤖 ⁅Boris⁆: não consigo mais escrever para você no privado; um robô joga no seu lugar até você me escrever de novo.
            ── ro
            🤖 ⁅Boris⁆: nu-ți mai pot scrie în privat; un robot joacă pe locul tău până îmi scrii din nou.
        "#]],
    );
    check(
        said(Announcement::TakenBack {
            seat: seat(1),
            player: player(1),
        }),
        expect![[r#"
            ── en
            👋 ⁅Boris⁆ is back at the table.
            ── ru
            👋 ⁅Boris⁆ снова за столом.
            ── pt
            👋 ⁅Boris⁆ voltou à mesa.
            ── ro
            👋 ⁅Boris⁆ a revenit la masă.
        "#]],
    );
    check(
        said(Announcement::Left {
            seat: seat(2),
            player: player(2),
            kicked: true,
            replaced_by_ai: true,
        }),
        expect![[r#"
            ── en
            ⁅Carla⁆ left the table; an AI player takes the seat.
            ── ru
            ⁅Carla⁆ больше не за столом; место занимает ИИ.
            ── pt
            ⁅Carla⁆ saiu da mesa; um robô fica no lugar.
            ── ro
            ⁅Carla⁆ a plecat de la masă; un robot îi ia locul.
        "#]],
    );
    check(
        said(Announcement::Stopped {
            by: Some(UserId::Telegram(9)),
        }),
        expect![[r#"
            ── en
            The table was stopped by ⁅Admin Eve⁆.
            ── ru
            ⁅Admin Eve⁆: стол закрыт.
            ── pt
            A mesa foi fechada por ⁅Admin Eve⁆.
            ── ro
            Masa a fost închisă de ⁅Admin Eve⁆.
        "#]],
    );
    check(
        |l| outputs::reminder_screen(l, std::time::Duration::from_secs(15)),
        expect![[r#"
            ── en
            ⏰ 15 s left for your move.
            ── ru
            ⏰ На ход осталось 15 с.
            ── pt
            ⏰ Faltam 15 s para a sua jogada.
            ── ro
            ⏰ Mai ai 15 s pentru mutare.
        "#]],
    );
}

#[test]
fn refusals() {
    use kozyr_table::TableError;
    use kozyr_table::runtime::ServiceError;
    let errors = [
        TableError::NotYourTurn,
        TableError::SeatTaken { seat: seat(1) },
        TableError::StaleVersion {
            expected: 3,
            current: 4,
        },
        TableError::SeatsNotFilled,
    ];
    check(
        |l| {
            let lines: Vec<String> = errors
                .iter()
                .map(|e| super::core::refusal(l, &ServiceError::Rejected(e.clone())))
                .collect();
            Screen::text(kozyr_i18n::escape_html(&lines.join("\n")))
        },
        expect![[r#"
            ── en
            It is not your turn.
            That seat is taken.
            This button is out of date: use the newest message.
            All four seats must be taken first.
            ── ru
            Сейчас не ваш ход.
            Это место занято.
            Эта кнопка устарела: используйте последнее сообщение.
            Сначала нужно занять все четыре места.
            ── pt
            Não é a sua vez.
            Este lugar está ocupado.
            Este botão está desatualizado: use a mensagem mais recente.
            Primeiro os quatro lugares devem estar ocupados.
            ── ro
            Nu e rândul tău.
            Locul e ocupat.
            Butonul acesta e vechi: folosește mesajul cel mai nou.
            Mai întâi trebuie ocupate toate cele patru locuri.
        "#]],
    );
    // A move the rules refuse says why, in the mover's language.
    let game = Game::new(GameKind::Kozel, GameOptions::default(), 11);
    let s = game.awaiting()[0];
    let wrong = GameAction::Kozel(kozyr_kozel::Action::Pass(CardSet::EMPTY));
    let err = game.clone().apply(s, wrong).unwrap_err();
    check(
        |l| Screen::text(kozyr_i18n::escape_html(&present::rule_error(l, &err))),
        expect![[r#"
            ── en
            Select at least one card first.
            ── ru
            Сначала выберите хотя бы одну карту.
            ── pt
            Escolha pelo menos uma carta.
            ── ro
            Alege mai întâi cel puțin o carte.
        "#]],
    );
    // Every press in these screens fits the codec.
    let t = info(GameKind::Kozel, 1, false);
    for p in present::lobby(Lang::En, &t, "Alice").presses() {
        assert_eq!(Press::parse(&p.encode()), Ok(p));
    }
}

/// Plays until `stop` says so, answering a Kozel lead with a beat when
/// there is one (so tricks change hands), keeping the table's record of
/// tricks as the table service does.
fn play_tracked(
    game: &mut Game,
    tricks: &mut kozyr_table::Tricks,
    mut stop: impl FnMut(&[GameEvent]) -> bool,
) -> Vec<GameEvent> {
    for _ in 0..10_000 {
        let s = game.awaiting()[0];
        let legal = game.legal_actions(s);
        let beat = legal
            .iter()
            .copied()
            .find(|a| matches!(a, GameAction::Kozel(kozyr_kozel::Action::Beat(_))));
        let a = beat.or_else(|| game.safe_action(s)).unwrap();
        let events = game.apply(s, a).unwrap();
        for e in &events {
            tricks.follow(e);
        }
        if stop(&events) {
            return events;
        }
    }
    panic!("never stopped");
}

fn with_tricks(mut info: TableInfo, tricks: &kozyr_table::Tricks) -> TableInfo {
    info.last_trick = tricks.last_trick.clone();
    info.last_deal = tricks.last_deal.clone();
    info
}

#[test]
fn a_kozel_trick_stays_shown_with_its_cards() {
    let mut game = Game::new(GameKind::Kozel, GameOptions::default(), 11);
    let mut tricks = kozyr_table::Tricks::default();
    // A trick with a beat and a pass in it.
    play_tracked(&mut game, &mut tricks, |events| {
        events.iter().any(|e| e.trick_taken().is_some())
    });
    let t = with_tricks(info(GameKind::Kozel, 9, false), &tricks);
    let next = game.awaiting()[0];
    check(
        |l| games::table(l, &t, &game.public_view()),
        expect![[r#"
            ── en
            **Kozel** · deal 1
            Trump: A♥ (hearts) · Stock: 16 cards
            **⁅Boris⁆** leads.

            Last trick: ⁅Boris⁆ took 4 points.
            ⁅Dan⁆ 9♦ · ⁅Alice⁆ 9♥ · **⁅Boris⁆ K♥** · ⁅Carla⁆ 🂠

            ⁅Alice⁆ and ⁅Carla⁆: 0 tricks · ⁅Boris⁆ and ⁅Dan⁆: 1 trick
            Series (at 12 defeat points a team is the goat):
            ⁅Alice⁆ and ⁅Carla⁆: 0
            ⁅Boris⁆ and ⁅Dan⁆: 0
            ── ru
            **Козёл** · сдача 1
            Козырь: A♥ (червы) · В колоде: 16 карт
            Заходит **⁅Boris⁆**.

            Прошлая взятка: ⁅Boris⁆, 4 очка.
            ⁅Dan⁆ 9♦ · ⁅Alice⁆ 9♥ · **⁅Boris⁆ K♥** · ⁅Carla⁆ 🂠

            ⁅Alice⁆ и ⁅Carla⁆: 0 взяток · ⁅Boris⁆ и ⁅Dan⁆: 1 взятка
            Серия (с 12 штрафными очками команда — козёл):
            ⁅Alice⁆ и ⁅Carla⁆: 0
            ⁅Boris⁆ и ⁅Dan⁆: 0
            ── pt
            **Kozel** · rodada 1
            Trunfo: A♥ (copas) · Monte: 16 cartas
            Quem abre: **⁅Boris⁆**.

            Última vaza: ⁅Boris⁆ levou 4 pontos.
            ⁅Dan⁆ 9♦ · ⁅Alice⁆ 9♥ · **⁅Boris⁆ K♥** · ⁅Carla⁆ 🂠

            ⁅Alice⁆ e ⁅Carla⁆: 0 vazas · ⁅Boris⁆ e ⁅Dan⁆: 1 vaza
            Partida (com 12 pontos de derrota a dupla é o bode):
            ⁅Alice⁆ e ⁅Carla⁆: 0
            ⁅Boris⁆ e ⁅Dan⁆: 0
            ── ro
            **Kozel** · runda 1
            Atu: A♥ (inimă roșie) · Pachet: 16 cărți
            Deschide **⁅Boris⁆**.

            Ultima levată: ⁅Boris⁆ a luat 4 puncte.
            ⁅Dan⁆ 9♦ · ⁅Alice⁆ 9♥ · **⁅Boris⁆ K♥** · ⁅Carla⁆ 🂠

            ⁅Alice⁆ și ⁅Carla⁆: 0 levate · ⁅Boris⁆ și ⁅Dan⁆: 1 levată
            Seria (la 12 puncte de înfrângere echipa e capra):
            ⁅Alice⁆ și ⁅Carla⁆: 0
            ⁅Boris⁆ și ⁅Dan⁆: 0
        "#]],
    );
    check(
        |l| hand_screen(l, &t, &game, next, CardSet::EMPTY),
        expect![[r#"
            ── en
            **Kozel** · ⁅Friday <cards>⁆
            Trump: A♥ (hearts) · Stock: 16 cards

            Last trick: ⁅Boris⁆ took 4 points.
            ⁅Dan⁆ 9♦ · ⁅Alice⁆ 9♥ · **⁅Boris⁆ K♥** · ⁅Carla⁆ 🂠

            👉 **Your turn**: lead one or more cards of one suit.
            Tap cards to select them.
            [6♠ | t7.9.c6S] [A♠ | t7.9.cAS] [A♦ | t7.9.cAD] [A♣ | t7.9.cAC]
            ── ru
            **Козёл** · ⁅Friday <cards>⁆
            Козырь: A♥ (червы) · В колоде: 16 карт

            Прошлая взятка: ⁅Boris⁆, 4 очка.
            ⁅Dan⁆ 9♦ · ⁅Alice⁆ 9♥ · **⁅Boris⁆ K♥** · ⁅Carla⁆ 🂠

            👉 **Ваш ход**: заходите одной или несколькими картами одной масти.
            Нажимайте на карты, чтобы выбрать их.
            [6♠ | t7.9.c6S] [A♠ | t7.9.cAS] [A♦ | t7.9.cAD] [A♣ | t7.9.cAC]
            ── pt
            **Kozel** · ⁅Friday <cards>⁆
            Trunfo: A♥ (copas) · Monte: 16 cartas

            Última vaza: ⁅Boris⁆ levou 4 pontos.
            ⁅Dan⁆ 9♦ · ⁅Alice⁆ 9♥ · **⁅Boris⁆ K♥** · ⁅Carla⁆ 🂠

            👉 **Sua vez**: abra a vaza com uma ou mais cartas de um naipe.
            Toque nas cartas para escolhê-las.
            [6♠ | t7.9.c6S] [A♠ | t7.9.cAS] [A♦ | t7.9.cAD] [A♣ | t7.9.cAC]
            ── ro
            **Kozel** · ⁅Friday <cards>⁆
            Atu: A♥ (inimă roșie) · Pachet: 16 cărți

            Ultima levată: ⁅Boris⁆ a luat 4 puncte.
            ⁅Dan⁆ 9♦ · ⁅Alice⁆ 9♥ · **⁅Boris⁆ K♥** · ⁅Carla⁆ 🂠

            👉 **E rândul tău**: deschide cu una sau mai multe cărți de aceeași culoare.
            Atinge cărțile ca să le alegi.
            [6♠ | t7.9.c6S] [A♠ | t7.9.cAS] [A♦ | t7.9.cAD] [A♣ | t7.9.cAC]
        "#]],
    );
}

#[test]
fn a_new_deal_shows_the_last_one_ended_in_hands_not_on_the_table() {
    let mut game = Game::new(GameKind::Hearts, GameOptions::default(), 5);
    let mut tricks = kozyr_table::Tricks::default();
    let over = play_tracked(&mut game, &mut tricks, |events| {
        events.iter().any(|e| e.deal_outcome().is_some())
    });
    let t = with_tricks(info(GameKind::Hearts, 60, false), &tricks);
    assert!(t.last_trick.is_none() && t.last_deal.is_some());
    // The group: deal 2's table has no trick of deal 1; the announcement
    // of deal 1's end shows its last trick.
    check(
        |l| games::table(l, &t, &game.public_view()),
        expect![[r#"
            ── en
            **Hearts** · deal 2
            Passing three cards to the right: waiting for 4 players.

            Totals (the game ends at 100):
            ⁅Alice⁆: 6 points
            ⁅Boris⁆: 3 points
            ⁅Carla⁆: 4 points
            ⁅Dan⁆: 13 points
            ── ru
            **Червы** · сдача 2
            Передаём три карты направо: ждём 4 игроков.

            Итоги (игра до 100):
            ⁅Alice⁆: 6 очков
            ⁅Boris⁆: 3 очка
            ⁅Carla⁆: 4 очка
            ⁅Dan⁆: 13 очков
            ── pt
            **Copas** · rodada 2
            Passando três cartas à direita: faltam 4 jogadores.

            Totais (o jogo termina em 100):
            ⁅Alice⁆: 6 pontos
            ⁅Boris⁆: 3 pontos
            ⁅Carla⁆: 4 pontos
            ⁅Dan⁆: 13 pontos
            ── ro
            **Inimi** · runda 2
            Se pasează trei cărți la dreapta: așteptăm 4 jucători.

            Totaluri (jocul se termină la 100):
            ⁅Alice⁆: 6 puncte
            ⁅Boris⁆: 3 puncte
            ⁅Carla⁆: 4 puncte
            ⁅Dan⁆: 13 puncte
        "#]],
    );
    let end = over.iter().find(|e| e.deal_outcome().is_some()).unwrap();
    check(
        |l| {
            let said = announced(GameKind::Hearts, &game, &t, end, l);
            present::with_trick(
                l,
                &t,
                said,
                t.last_deal.as_ref().unwrap().last_trick.as_ref().unwrap(),
            )
        },
        expect![[r#"
            ── en
            **Deal 1 is over**
            ⁅Alice⁆: 6 points this deal
            ⁅Boris⁆: 3 points this deal
            ⁅Carla⁆: 4 points this deal
            ⁅Dan⁆: 13 points this deal

            Totals (the game ends at 100):
            ⁅Alice⁆: 6 points
            ⁅Boris⁆: 3 points
            ⁅Carla⁆: 4 points
            ⁅Dan⁆: 13 points

            Last trick: ⁅Alice⁆ took 2 points.
            **⁅Alice⁆ A♣** · ⁅Boris⁆ A♦ · ⁅Carla⁆ Q♥ · ⁅Dan⁆ A♥
            ── ru
            **Сдача 1 окончена**
            ⁅Alice⁆: 6 очков за сдачу
            ⁅Boris⁆: 3 очка за сдачу
            ⁅Carla⁆: 4 очка за сдачу
            ⁅Dan⁆: 13 очков за сдачу

            Итоги (игра до 100):
            ⁅Alice⁆: 6 очков
            ⁅Boris⁆: 3 очка
            ⁅Carla⁆: 4 очка
            ⁅Dan⁆: 13 очков

            Прошлая взятка: ⁅Alice⁆, 2 очка.
            **⁅Alice⁆ A♣** · ⁅Boris⁆ A♦ · ⁅Carla⁆ Q♥ · ⁅Dan⁆ A♥
            ── pt
            **Fim da rodada 1**
            ⁅Alice⁆: 6 pontos nesta rodada
            ⁅Boris⁆: 3 pontos nesta rodada
            ⁅Carla⁆: 4 pontos nesta rodada
            ⁅Dan⁆: 13 pontos nesta rodada

            Totais (o jogo termina em 100):
            ⁅Alice⁆: 6 pontos
            ⁅Boris⁆: 3 pontos
            ⁅Carla⁆: 4 pontos
            ⁅Dan⁆: 13 pontos

            Última vaza: ⁅Alice⁆ levou 2 pontos.
            **⁅Alice⁆ A♣** · ⁅Boris⁆ A♦ · ⁅Carla⁆ Q♥ · ⁅Dan⁆ A♥
            ── ro
            **Runda 1 s-a terminat**
            ⁅Alice⁆: 6 puncte în această rundă
            ⁅Boris⁆: 3 puncte în această rundă
            ⁅Carla⁆: 4 puncte în această rundă
            ⁅Dan⁆: 13 puncte în această rundă

            Totaluri (jocul se termină la 100):
            ⁅Alice⁆: 6 puncte
            ⁅Boris⁆: 3 puncte
            ⁅Carla⁆: 4 puncte
            ⁅Dan⁆: 13 puncte

            Ultima levată: ⁅Alice⁆ a luat 2 puncte.
            **⁅Alice⁆ A♣** · ⁅Boris⁆ A♦ · ⁅Carla⁆ Q♥ · ⁅Dan⁆ A♥
        "#]],
    );
    // A hand: deal 1's result with its last trick, above deal 2's cards.
    check(
        |l| hand_screen(l, &t, &game, seat(1), CardSet::EMPTY),
        expect![[r#"
            ── en
            **Hearts** · ⁅Friday <cards>⁆

            **Deal 1 is over**
            ⁅Alice⁆: 6 points this deal
            ⁅Boris⁆: 3 points this deal
            ⁅Carla⁆: 4 points this deal
            ⁅Dan⁆: 13 points this deal

            Totals (the game ends at 100):
            ⁅Alice⁆: 6 points
            ⁅Boris⁆: 3 points
            ⁅Carla⁆: 4 points
            ⁅Dan⁆: 13 points

            Last trick: ⁅Alice⁆ took 2 points.
            **⁅Alice⁆ A♣** · ⁅Boris⁆ A♦ · ⁅Carla⁆ Q♥ · ⁅Dan⁆ A♥

            Choose three cards to pass to the right.
            Tap cards to select them.
            [J♣ | t7.1o.cJC] [Q♣ | t7.1o.cQC] [2♦ | t7.1o.c2D] [J♦ | t7.1o.cJD] [A♦ | t7.1o.cAD]
            [6♠ | t7.1o.c6S] [8♠ | t7.1o.c8S] [10♠ | t7.1o.cTS] [J♠ | t7.1o.cJS] [2♥ | t7.1o.c2H]
            [5♥ | t7.1o.c5H] [6♥ | t7.1o.c6H] [9♥ | t7.1o.c9H]
            [Pass 3 | t7.1o.h0]
            ── ru
            **Червы** · ⁅Friday <cards>⁆

            **Сдача 1 окончена**
            ⁅Alice⁆: 6 очков за сдачу
            ⁅Boris⁆: 3 очка за сдачу
            ⁅Carla⁆: 4 очка за сдачу
            ⁅Dan⁆: 13 очков за сдачу

            Итоги (игра до 100):
            ⁅Alice⁆: 6 очков
            ⁅Boris⁆: 3 очка
            ⁅Carla⁆: 4 очка
            ⁅Dan⁆: 13 очков

            Прошлая взятка: ⁅Alice⁆, 2 очка.
            **⁅Alice⁆ A♣** · ⁅Boris⁆ A♦ · ⁅Carla⁆ Q♥ · ⁅Dan⁆ A♥

            Выберите три карты, чтобы передать направо.
            Нажимайте на карты, чтобы выбрать их.
            [J♣ | t7.1o.cJC] [Q♣ | t7.1o.cQC] [2♦ | t7.1o.c2D] [J♦ | t7.1o.cJD] [A♦ | t7.1o.cAD]
            [6♠ | t7.1o.c6S] [8♠ | t7.1o.c8S] [10♠ | t7.1o.cTS] [J♠ | t7.1o.cJS] [2♥ | t7.1o.c2H]
            [5♥ | t7.1o.c5H] [6♥ | t7.1o.c6H] [9♥ | t7.1o.c9H]
            [Передать 3 | t7.1o.h0]
            ── pt
            **Copas** · ⁅Friday <cards>⁆

            **Fim da rodada 1**
            ⁅Alice⁆: 6 pontos nesta rodada
            ⁅Boris⁆: 3 pontos nesta rodada
            ⁅Carla⁆: 4 pontos nesta rodada
            ⁅Dan⁆: 13 pontos nesta rodada

            Totais (o jogo termina em 100):
            ⁅Alice⁆: 6 pontos
            ⁅Boris⁆: 3 pontos
            ⁅Carla⁆: 4 pontos
            ⁅Dan⁆: 13 pontos

            Última vaza: ⁅Alice⁆ levou 2 pontos.
            **⁅Alice⁆ A♣** · ⁅Boris⁆ A♦ · ⁅Carla⁆ Q♥ · ⁅Dan⁆ A♥

            Escolha três cartas para passar à direita.
            Toque nas cartas para escolhê-las.
            [J♣ | t7.1o.cJC] [Q♣ | t7.1o.cQC] [2♦ | t7.1o.c2D] [J♦ | t7.1o.cJD] [A♦ | t7.1o.cAD]
            [6♠ | t7.1o.c6S] [8♠ | t7.1o.c8S] [10♠ | t7.1o.cTS] [J♠ | t7.1o.cJS] [2♥ | t7.1o.c2H]
            [5♥ | t7.1o.c5H] [6♥ | t7.1o.c6H] [9♥ | t7.1o.c9H]
            [Passar 3 | t7.1o.h0]
            ── ro
            **Inimi** · ⁅Friday <cards>⁆

            **Runda 1 s-a terminat**
            ⁅Alice⁆: 6 puncte în această rundă
            ⁅Boris⁆: 3 puncte în această rundă
            ⁅Carla⁆: 4 puncte în această rundă
            ⁅Dan⁆: 13 puncte în această rundă

            Totaluri (jocul se termină la 100):
            ⁅Alice⁆: 6 puncte
            ⁅Boris⁆: 3 puncte
            ⁅Carla⁆: 4 puncte
            ⁅Dan⁆: 13 puncte

            Ultima levată: ⁅Alice⁆ a luat 2 puncte.
            **⁅Alice⁆ A♣** · ⁅Boris⁆ A♦ · ⁅Carla⁆ Q♥ · ⁅Dan⁆ A♥

            Alege trei cărți de pasat la dreapta.
            Atinge cărțile ca să le alegi.
            [J♣ | t7.1o.cJC] [Q♣ | t7.1o.cQC] [2♦ | t7.1o.c2D] [J♦ | t7.1o.cJD] [A♦ | t7.1o.cAD]
            [6♠ | t7.1o.c6S] [8♠ | t7.1o.c8S] [10♠ | t7.1o.cTS] [J♠ | t7.1o.cJS] [2♥ | t7.1o.c2H]
            [5♥ | t7.1o.c5H] [6♥ | t7.1o.c6H] [9♥ | t7.1o.c9H]
            [Pasează 3 | t7.1o.h0]
        "#]],
    );
}

#[test]
fn a_hearts_hand_on_its_turn_after_a_trick() {
    let mut game = Game::new(GameKind::Hearts, GameOptions::default(), 5);
    let mut tricks = kozyr_table::Tricks::default();
    // Past the passing and two tricks, into the third.
    let mut taken = 0;
    play_tracked(&mut game, &mut tricks, |events| {
        taken += events.iter().filter(|e| e.trick_taken().is_some()).count();
        taken == 2
    });
    moves(&mut game, 1);
    let t = with_tricks(info(GameKind::Hearts, 30, false), &tricks);
    let s = game.awaiting()[0];
    check(
        |l| hand_screen(l, &t, &game, s, CardSet::EMPTY),
        expect![[r#"
            ── en
            **Hearts** · ⁅Friday <cards>⁆
            On the table:
            ⁅Alice⁆: 2♠

            Last trick: ⁅Alice⁆ took 0 points.
            ⁅Carla⁆ 2♦ · ⁅Dan⁆ 4♦ · **⁅Alice⁆ 6♦** · ⁅Boris⁆ 3♦

            👉 **Your turn**: tap a card to play it.
            Cards marked ✗ cannot be played now.
            [✗5♣ | t7.u.y5C] [✗10♣ | t7.u.yTC] [✗5♦ | t7.u.y5D] [✗9♦ | t7.u.y9D] [✗K♦ | t7.u.yKD]
            [✗A♦ | t7.u.yAD] [6♠ | t7.u.y6S] [8♠ | t7.u.y8S] [9♠ | t7.u.y9S] [✗5♥ | t7.u.y5H]
            [✗K♥ | t7.u.yKH]
            ── ru
            **Червы** · ⁅Friday <cards>⁆
            На столе:
            ⁅Alice⁆: 2♠

            Прошлая взятка: ⁅Alice⁆, 0 очков.
            ⁅Carla⁆ 2♦ · ⁅Dan⁆ 4♦ · **⁅Alice⁆ 6♦** · ⁅Boris⁆ 3♦

            👉 **Ваш ход**: нажмите на карту, чтобы сыграть её.
            Карты с пометкой ✗ сейчас сыграть нельзя.
            [✗5♣ | t7.u.y5C] [✗10♣ | t7.u.yTC] [✗5♦ | t7.u.y5D] [✗9♦ | t7.u.y9D] [✗K♦ | t7.u.yKD]
            [✗A♦ | t7.u.yAD] [6♠ | t7.u.y6S] [8♠ | t7.u.y8S] [9♠ | t7.u.y9S] [✗5♥ | t7.u.y5H]
            [✗K♥ | t7.u.yKH]
            ── pt
            **Copas** · ⁅Friday <cards>⁆
            Na mesa:
            ⁅Alice⁆: 2♠

            Última vaza: ⁅Alice⁆ levou 0 pontos.
            ⁅Carla⁆ 2♦ · ⁅Dan⁆ 4♦ · **⁅Alice⁆ 6♦** · ⁅Boris⁆ 3♦

            👉 **Sua vez**: toque numa carta para jogá-la.
            As cartas marcadas com ✗ não podem ser jogadas agora.
            [✗5♣ | t7.u.y5C] [✗10♣ | t7.u.yTC] [✗5♦ | t7.u.y5D] [✗9♦ | t7.u.y9D] [✗K♦ | t7.u.yKD]
            [✗A♦ | t7.u.yAD] [6♠ | t7.u.y6S] [8♠ | t7.u.y8S] [9♠ | t7.u.y9S] [✗5♥ | t7.u.y5H]
            [✗K♥ | t7.u.yKH]
            ── ro
            **Inimi** · ⁅Friday <cards>⁆
            Pe masă:
            ⁅Alice⁆: 2♠

            Ultima levată: ⁅Alice⁆ a luat 0 puncte.
            ⁅Carla⁆ 2♦ · ⁅Dan⁆ 4♦ · **⁅Alice⁆ 6♦** · ⁅Boris⁆ 3♦

            👉 **E rândul tău**: atinge o carte ca s-o joci.
            Cărțile marcate cu ✗ nu pot fi jucate acum.
            [✗5♣ | t7.u.y5C] [✗10♣ | t7.u.yTC] [✗5♦ | t7.u.y5D] [✗9♦ | t7.u.y9D] [✗K♦ | t7.u.yKD]
            [✗A♦ | t7.u.yAD] [6♠ | t7.u.y6S] [8♠ | t7.u.y8S] [9♠ | t7.u.y9S] [✗5♥ | t7.u.y5H]
            [✗K♥ | t7.u.yKH]
        "#]],
    );
}

/// Every hand marks, typed, which of its cards a move open now puts down:
/// what the Mini App greys out. Kozel: the leader may lead any card, the
/// others none; Hearts in play: the cards not barred on the seat's turn.
#[test]
fn a_hands_cards_say_which_a_move_puts_down() {
    let hand = |game: &Game, seat: Seat| kozyr_table::HandView {
        table: TableId(7),
        chat: ChatKey::Telegram(-100),
        title: "Friday".into(),
        kind: game.kind(),
        phase: Phase::Playing,
        version: 40,
        seat,
        player: player(seat.index()),
        away: false,
        game: game.view(seat),
        legal: game.legal_actions(seat),
        your_turn: game.awaiting().contains(&seat),
        deadline: None,
        last_trick: None,
        last_deal: None,
    };
    let faces = |game: &Game, seat: Seat| {
        let h = hand(game, seat);
        let info = info(game.kind(), 40, false);
        let screen = outputs::hand_screen(&h, &info, CardSet::EMPTY, HandLayout::MiniApp);
        let faces: Vec<_> = screen.keyboard.buttons().filter_map(|b| b.card).collect();
        assert!(!faces.is_empty(), "seat {seat:?} shows its cards");
        faces
    };
    let kozel = Game::new(GameKind::Kozel, GameOptions::default(), 11);
    let leader = kozel.awaiting()[0];
    assert!(faces(&kozel, leader).iter().all(|f| f.playable));
    let other = Seat::new((leader.index() as u8 + 1) % 4).unwrap();
    assert!(faces(&kozel, other).iter().all(|f| !f.playable));

    let mut hearts = Game::new(GameKind::Hearts, GameOptions::default(), 11);
    // Everyone passes their three lowest cards; then the play begins.
    for s in 0..4u8 {
        let seat = Seat::new(s).unwrap();
        let pass = hearts.legal_actions(seat)[0];
        hearts.apply(seat, pass).unwrap();
    }
    let on_turn = hearts.awaiting()[0];
    let cards = faces(&hearts, on_turn);
    assert!(cards.iter().any(|f| f.playable) && cards.iter().any(|f| !f.playable));
    assert!(cards.iter().all(|f| f.playable != f.barred), "{cards:?}");
}

/// A hand drawn with a table view of another moment (a delivery holding an
/// older view when a newer hand comes) is drawn as of its own state: its
/// buttons carry the hand's version, so a press on them is not stale, and a
/// seat the AI player took over says so even if the view does not know yet
/// (seen once in CI: a handed-over seat drawn as a person's turn with no
/// moves, "Waiting for" its own person).
#[test]
fn a_hand_is_drawn_as_of_its_own_state_whatever_the_view() {
    let game = Game::new(GameKind::Kozel, GameOptions::default(), 11);
    let seat = game.awaiting()[0];
    let hand = |away: bool| kozyr_table::HandView {
        table: TableId(7),
        chat: ChatKey::Telegram(-100),
        title: "Friday".into(),
        kind: game.kind(),
        phase: Phase::Playing,
        version: 41,
        seat,
        player: player(seat.index()),
        away,
        game: game.view(seat),
        legal: if away {
            Vec::new()
        } else {
            game.legal_actions(seat)
        },
        your_turn: true,
        deadline: None,
        last_trick: None,
        last_deal: None,
    };
    // The view is one version behind, with the person still in the seat.
    let older = info(game.kind(), 40, false);
    let versions = |s: &Screen| -> Vec<u64> {
        (s.keyboard.buttons())
            .filter_map(|b| match b.target {
                ButtonTarget::Press(Press::Table { version, .. }) => Some(version),
                _ => None,
            })
            .collect()
    };
    let present = outputs::hand_screen(
        &hand(false),
        &older,
        CardSet::EMPTY,
        HandLayout::PrivateChat,
    );
    assert!(!versions(&present).is_empty());
    assert!(versions(&present).iter().all(|v| *v == 41), "{present:?}");

    let away = outputs::hand_screen(&hand(true), &older, CardSet::EMPTY, HandLayout::PrivateChat);
    use kozyr_i18n::{Args, key, tr};
    let take_back = tr(Lang::En, key::BTN_TAKE_BACK, &Args::new());
    assert!(
        away.keyboard.buttons().any(|b| b.label == take_back),
        "{away:?}"
    );
    assert!(versions(&away).iter().all(|v| *v == 41), "{away:?}");
    let waiting = tr(
        Lang::En,
        key::HAND_WAITING,
        &Args::new().text("name", NAMES[seat.index()]),
    );
    assert!(!away.text.contains(&waiting), "{}", away.text);
}
