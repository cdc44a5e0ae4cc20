# kozyr — English.
# Messages are Telegram HTML unless their key is `plain` in src/i18n.rs
# (buttons, popups, command descriptions): those hold no markup.
#
# Glossary — one word for each thing, in every message:
#   trump · trick · lead (the first card or cards of a trick) · beat ·
#   discard (Kozel: cards given face down instead of beating) ·
#   pass (Hearts: three cards handed on after the deal) ·
#   off-suit (Hearts: a card not of the suit led) · hearts are broken ·
#   AI player (a seat the computer plays) · the bot (kozyr itself, "I") ·
#   deal · series (Kozel) · game (Hearts) · seat · table.
# rejected: robot, 🤖 bot, discarded on, pass face down

## Languages and games

language-name = English
game-kozel = Kozel
game-hearts = Hearts
suit-spades = spades
suit-hearts = hearts
suit-diamonds = diamonds
suit-clubs = clubs
team-name = { $first } and { $second }
ai-player = 🤖 AI { $number }
ai-stand-in = 🤖 for { $name }

## Command descriptions

cmd-new = Open a table (Kozel or Hearts)
cmd-kozel = Open a Kozel table
cmd-hearts = Open a Hearts table
cmd-help = How to play with this bot
cmd-rules = The rules, short
cmd-score = The score at this table
cmd-stats = This chat's leaderboard
cmd-settings = Language, turn timer, game options (admins)
cmd-stop = Stop the table (creator or admin)
cmd-kick = Remove a player: reply to them (admin)
cmd-lang = Change the chat's language

## Help, rules, onboarding

help-group =
    <b>Kozel and Hearts for four</b>
    /new — open a table and choose the game (/kozel, /hearts for short)
    Sit down with the buttons, add AI players for empty seats, then Start.
    Your cards come in a private message from me: tap cards to select them, then Lead, Beat or Discard.
    /rules — the rules · /score — this table · /stats — leaderboard
    /settings — language and turn timer (admins) · /stop — end the table
help-group-hand-button =
    <b>Kozel and Hearts for four</b>
    /new — open a table and choose the game (/kozel, /hearts for short)
    Sit down with the buttons, add AI players for empty seats, then Start.
    Press “My hand” under the table to see your cards — only you see them: choose cards, then Lead, Beat or Discard.
    /rules — the rules · /score — this table · /stats — leaderboard
    /settings — language and turn timer (admins) · /stop — end the table
help-private =
    <b>Hi! I host Kozel and Hearts in group chats.</b>
    Add me to a group and send /new there. Your cards will come here, in this chat.
help-private-hand-button =
    <b>Hi! I host Kozel and Hearts in server channels.</b>
    Add me to a server and send /new in a channel. Your cards are there too, behind the table's “My hand” button: only you see them.
start-welcome =
    <b>Welcome!</b> Now I can send you your cards.
    Go back to the group and join a table, or add me to a group and send /new.
start-seated = You are seated at seat { $seat } in <b>{ $group }</b>. Your cards will come here.
start-seated-hand-button = You are seated at seat { $seat } in <b>{ $group }</b>. Press “My hand” under the table to see your cards.
game-begins = <b>{ $game } begins!</b> Your cards are in your private chat with me.
game-begins-hand-button = <b>{ $game } begins!</b> Press “My hand” to see your cards: only you see them.
deal-begins = Deal { $deal }: { $dealer } dealt, { $leader } leads.
rules-kozel =
    <b>Kozel</b> — four players, two teams; partners sit opposite.
    36 cards, low to high: 6 7 8 9 J Q K 10 A. Points: A 11, 10 10, K 4, Q 3, J 2 — 120 in a deal.
    Everyone holds 4 cards. A card from the middle of the stock is shown: its suit is trump.
    The leader plays one or more cards of one suit. Each player in turn answers with as many cards: <b>beat</b> (each card beats one of the winning cards: higher in the same suit, or a trump) or <b>discard</b> (face down).
    The last to beat takes the trick; everyone draws back to 4, the winner first.
    <b>Molodka</b>: four cards of one suit may be played at any moment, even out of turn, and lead the trick.
    61 points win the deal. The losers get 2 defeat points, 4 with 30 or less, 6 with no trick at all. 60 : 60 is <b>eggs</b>: nobody gets any.
    The team that reaches 12 defeat points is the <b>goat</b> 🐐 — with eggs, if a deal ended 60 : 60.
rules-hearts =
    <b>Hearts</b> — four players, each on their own. 52 cards, 13 each.
    Once the cards are dealt, pass 3 of them: left, right, across, then no passing, in turn.
    The 2♣ leads the first trick. Follow suit if you can; the highest card of the suit led takes the trick.
    Each ♥ is 1 point and the Q♠ 13. Hearts cannot be led until they are broken: a heart played off-suit (with the “any heart breaks” setting: any heart played), unless you hold only hearts; no points on the first trick.
    With the “shoot the moon” option, whoever takes all 26 points scores 0 and everyone else 26.
    The game ends when someone reaches the target score; the lowest total wins.

## Lobby

choose-game = Which game shall we play?
lobby-title = <b>{ $game }</b> — a new table
lobby-created-by = Opened by { $name }
lobby-team = <b>Team { $team }</b>
lobby-partners = Partners sit opposite each other: seats 1 and 3, seats 2 and 4.
lobby-seat = { $seat }. { $name }
lobby-seat-free = { $seat }. — free —
lobby-waiting =
    { $count ->
        [one] Waiting for one more player.
       *[other] Waiting for { $count } more players.
    }
lobby-ready = All seats are taken: the creator or an admin can start.
lobby-unreachable = ⚠️ { $name }, I can't message you yet: press your button below, then Start.
btn-join = Join
btn-take-seat = Seat { $seat }
btn-leave = Leave
btn-add-ai = Add AI player
btn-start = Start
btn-open-dm = { $name }: open my chat

## The table

table-title = <b>{ $game }</b> · deal { $deal }
table-trump = Trump: { $card } ({ $suit })
table-stock =
    { $count ->
        [one] Stock: { $count } card
       *[other] Stock: { $count } cards
    }
table-stock-empty = The stock is empty.
table-turn = Turn: <b>{ $name }</b>
table-turn-allowance = Turn: <b>{ $name }</b> · ⏳ { $seconds } s a move
table-to-lead = <b>{ $name }</b> leads.
table-played = { $name }: { $cards }
table-passed = { $name }: { $backs } (discarded)
table-molodka = Molodka by <b>{ $name }</b>!
table-last-trick =
    { $points ->
        [one] Last trick: { $name } took { $points } point.
       *[other] Last trick: { $name } took { $points } points.
    }
table-tricks =
    { $count ->
        [one] { $team }: { $count } trick
       *[other] { $team }: { $count } tricks
    }
table-series = Series (at { $loss } defeat points a team is the goat):
table-defeat = { $team }: { $points }
table-eggs-seen = 🥚 There were eggs in this series.
hearts-pass-left = to the left
hearts-pass-right = to the right
hearts-pass-across = across
hearts-no-passing = No passing this deal.
hearts-passing =
    { $count ->
        [one] Passing three cards { $direction }: waiting for one player.
       *[other] Passing three cards { $direction }: waiting for { $count } players.
    }
hearts-broken = ♥ Hearts are broken.
hearts-totals = Totals (the game ends at { $target }):
hearts-total =
    { $points ->
        [one] { $name }: { $points } point
       *[other] { $name }: { $points } points
    }
hearts-deal-points =
    { $points ->
        [one] { $name }: { $points } point this deal
       *[other] { $name }: { $points } points this deal
    }

## Results

deal-over = <b>Deal { $deal } is over</b>
deal-team-result =
    { $team }: { $points ->
        [one] { $points } point
       *[other] { $points } points
    }, { $tricks ->
        [one] { $tricks } trick
       *[other] { $tricks } tricks
    }
deal-defeat =
    { $points ->
        [one] { $team } get { $points } defeat point.
       *[other] { $team } get { $points } defeat points.
    }
deal-no-trick = { $team } did not take a single trick.
deal-eggs = 🥚 <b>Eggs!</b> 60 : 60 — nobody gets defeat points.
series-score = Series: { $first } { $a } : { $b } { $second }
series-over = <b>The series is over</b>
series-goat = 🐐 <b>{ $team }</b> are the goat!
series-goat-eggs = 🐐🥚 <b>{ $team }</b> are the goat with eggs!
hearts-deal-over = <b>Deal { $deal } is over</b>
hearts-shot-moon = 🌙 <b>{ $name }</b> shot the moon!
hearts-game-over = <b>Game over</b>
hearts-rank =
    { $points ->
        [one] { $place }. { $name } — { $points } point
       *[other] { $place }. { $name } — { $points } points
    }
hearts-winner = 🏆 <b>{ $name }</b> wins!

## The hand

hand-title = <b>{ $game }</b> · { $group }
hand-table = On the table:
hand-your-lead = 👉 <b>Your turn</b>: lead one or more cards of one suit.
hand-your-answer =
    { $count ->
        [one] 👉 <b>Your turn</b>: beat or discard { $count } card.
       *[other] 👉 <b>Your turn</b>: beat or discard { $count } cards.
    }
hand-waiting = Waiting for { $name }.
hand-turn-allowance = ⏳ You have { $seconds } s a move.
hand-selected = Selected: { $cards }
hand-select-hint = Tap cards to select them.
hand-one-tap-hint = Tap a card: ⚔ beats with it, ↓ discards it face down.
hand-can-beat = Can beat: { $options }
hand-cannot-beat =
    { $count ->
        [one] Nothing can beat it: discard { $count } card.
       *[other] Nothing can beat it: discard { $count } cards.
    }
hand-selection-beats = ✓ Your selection beats.
hand-selection-passes = Your selection does not beat; you can discard it.
hand-molodka = You hold a <b>molodka</b>: you may play it now, even out of turn.
hand-you-passed = You discarded face down: { $cards }
hand-ai-playing = 🤖 An AI player is playing for you. Press “Take back my seat” to return.
hand-series-over = The series is over.
hand-hearts-pass = Choose three cards to pass { $direction }.
hand-hearts-passed = You passed { $cards }; waiting for the others.
hand-hearts-received = You received: { $cards }
hand-hearts-play = 👉 <b>Your turn</b>: tap a card to play it.
hand-hearts-unplayable = Cards marked { $mark } cannot be played now.
btn-lead = Lead
btn-beat = Beat
btn-pass = Discard
btn-molodka = Molodka!
btn-clear = Clear
btn-hearts-pass = Pass 3
btn-take-back = Take back my seat
btn-rematch = Rematch (same seats)

## Popups: rule errors

err-not-your-turn = It is not your turn.
err-deal-over = This deal is over.
err-series-over = The series is over.
err-not-in-hand = { $card } is not in your hand.
err-no-cards = Select at least one card first.
err-mixed-suits = A lead must be cards of one suit.
err-already-led = The trick is already led: beat or discard.
err-nothing-led = Nothing is led yet: lead first.
err-wrong-count =
    { $expected ->
        [one] Play exactly { $expected } card, not { $got }.
       *[other] Play exactly { $expected } cards, not { $got }.
    }
err-cannot-beat = These cards cannot beat { $target }.
err-no-molodka = A molodka is four cards of one suit.
err-molodka-outranked = A molodka closer to the leader is already on the table.
err-wrong-game = That button belongs to another game.
err-must-follow-suit = You must follow suit: play { $suit }.
err-hearts-not-broken = Hearts are not broken yet: lead another suit.
err-no-points-first-trick = No points on the first trick.
err-lead-two-of-clubs = The first trick starts with the 2♣.
err-pass-three = Choose exactly three cards to pass.
err-already-passed = You have already passed your cards.
err-not-passing = Cards are not passed now.
err-still-passing = Wait until everyone has passed.
err-game-over = The game is over.

## Popups: everything else

err-not-seated = You are not seated at this table.
err-already-seated = You are already seated.
err-table-full = The table is full.
err-seat-taken = That seat is taken.
err-stale = This button is out of date: use the newest message.
err-menu-closed = This menu is closed: send the command again for a new one.
err-not-allowed = You are not allowed to do that.
err-admin-only = Only the table's creator or an admin can do that.
err-no-table = There is no open table here: send /new.
err-table-exists = There is already a table in this chat.
table-shown-again = There is already a table in this chat: here it is again, below.
err-need-four = All four seats must be taken first.
err-game-started = The game has already started.
err-group-only = This works in the chat where you play, not here.
err-bad-button = This button does not work.
err-try-again = Something went wrong; please try again.
err-too-fast = Too many presses: wait a moment and press again.
err-anonymous = I can't tell who is writing: anonymous admins and channels can't play. Turn off "Remain anonymous" and send the command again.
err-not-your-question = This is not your question: only the person who asked can answer it.
err-other-chat = This button belongs to a table in another chat: use it there.
told-in-group = { $name }, I can't write to you in private (open my chat and press Start), so I answer here:
told-from = In <b>{ $group }</b>:

## Timers

timer-reminder-dm = ⏰ { $seconds } s left for your move.
timer-auto-played = ⌛ { $name } ran out of time; a safe move was played for them.
timer-handed-to-ai = 🤖 { $name } missed { $count } turns in a row; an AI player takes over until they come back.
timer-took-back = 👋 { $name } is back at the table.
unreachable-to-ai = 🤖 I cannot write to { $name } any more; an AI player takes the seat until they write to me again.

## Settings

settings-title = <b>Settings</b>
settings-language = Language: { $lang }
settings-timer = Turn timer: { $seconds } s
settings-timer-none = Turn timer: no limit
settings-hearts-target = Hearts ends at { $points } points
settings-saved = Saved.
settings-moon-on = Shoot the moon: on
settings-moon-off = Shoot the moon: off
btn-moon-on = Shoot the moon: on
btn-moon-off = Shoot the moon: off
settings-break-any = Hearts are broken by any heart played
settings-break-discard = Hearts are broken only by a heart played off-suit
btn-break-any = Hearts break: any heart
btn-break-discard = Hearts break: off-suit only
btn-seconds = { $seconds } s
btn-no-limit = No limit
btn-points = { $points } points
lang-choose = Choose the chat's language:
lang-set = Language: { $lang }

## Score and statistics

score-none = No series is being played here. Send /new to open a table.
stats-title = <b>Leaderboard</b>
stats-line =
    { $place }. { $name } — { $games ->
        [one] { $games } game
       *[other] { $games } games
    }, { $wins ->
        [one] { $wins } win
       *[other] { $wins } wins
    }
stats-goats =
    { $count ->
        [one] 🐐 once the goat
       *[other] 🐐 { $count } times the goat
    }
stats-empty = No finished games in this chat yet.

## Stop and kick

stop-confirm = Stop this table? The game in progress will be lost.
stop-kept = The table was not stopped: the game goes on.
btn-stop-yes = Yes, stop it
btn-stop-no = No, keep playing
stopped = The table was stopped by { $name }.
kicked = { $name } left the table; an AI player takes the seat.
kick-how = Reply to a player's message with /kick.

## Discord

discord-my-hand = My hand
discord-your-turn = your turn
discord-press-my-hand = press “My hand” to see your cards
discord-pick-cards = Choose cards
discord-no-hand = You have no cards at this table.

## Delivery

lobby-started = The game has started: the table is below.

## The Mini App

webapp-open = 🃏 Open the table
webapp-link = 🃏 Play in the app
webapp-your-cards = Your cards
webapp-spectator = You are watching: you have no seat at this table.
webapp-reconnecting = Reconnecting…
webapp-table = Table
webapp-unauthorized = Open this page from Telegram: its sign-in is missing, too old or not valid.
webapp-forbidden = You can only play your own seat at this table.
webapp-no-table = This table is not open any more.
