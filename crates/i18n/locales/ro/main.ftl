# kozyr — română.
# Mesajele sunt HTML Telegram, în afară de cheile `plain` din src/i18n.rs
# (butoane, ferestre scurte, descrieri de comenzi): acestea nu au marcaje.
# Plurale: one (1), few (0, 2–19, 101–119…), other (20+: „20 de cărți”).
# RO_PLURAL (src/i18n.rs) alege forma: intl_pluralrules greșește la 102–119.
#
# Numele unui jucător nu se declină și nu cere gen: «{ $name }: …»,
# «Așteptăm: { $name }».
#
# Glosar — un singur cuvânt pentru fiecare lucru, în toate mesajele:
#   atu · levată · a deschide (levata: primele cărți) · a bate ·
#   a arunca (Kozel: cărți cu fața în jos în loc să bați) ·
#   a pasa (Inimi: trei cărți după împărțire) · pe altă culoare (Inimi) ·
#   inimile sunt sparte · robot (un loc jucat de calculator) ·
#   botul (kozyr însuși, «eu») · rundă (fiecare împărțire) · mână (cărțile
#   cuiva) · rândul (cine joacă acum) · mutare · serie (Kozel) · joc (Inimi).
# respins: la mutare, în locul lui, Îl așteptăm, lui { $name }, nu se dau, de dat

## Limbi și jocuri

language-name = Română
game-kozel = Kozel
game-hearts = Inimi
suit-spades = pică
suit-hearts = inimă roșie
suit-diamonds = caro
suit-clubs = treflă
team-name = { $first } și { $second }
ai-player = 🤖 Robot { $number }
ai-stand-in = 🤖 pentru { $name }

## Descrierile comenzilor

cmd-new = Deschide o masă (Kozel sau Inimi)
cmd-kozel = Deschide o masă de Kozel
cmd-hearts = Deschide o masă de Inimi
cmd-help = Cum se joacă cu acest bot
cmd-rules = Regulile, pe scurt
cmd-score = Scorul la această masă
cmd-stats = Clasamentul acestui chat
cmd-settings = Limba, timpul de mutare, opțiuni (administratori)
cmd-stop = Închide masa (creatorul sau un administrator)
cmd-kick = Scoate un jucător: răspunde-i (administrator)
cmd-lang = Schimbă limba chatului

## Ajutor, reguli, primii pași

help-group =
    <b>Kozel și Inimi în patru</b>
    /new — deschide o masă și alege jocul (pe scurt: /kozel, /hearts)
    Așază-te cu butoanele, pune roboți pe locurile libere, apoi Începe.
    Cărțile îți vin de la mine într-un mesaj privat: atinge cărțile ca să le alegi, apoi Deschide, Bate sau Aruncă.
    /rules — regulile · /score — scorul · /stats — clasamentul
    /settings — limba și timpul (administratori) · /stop — închide masa
help-group-hand-button =
    <b>Kozel și Inimi în patru</b>
    /new — deschide o masă și alege jocul (pe scurt: /kozel, /hearts)
    Așază-te cu butoanele, pune roboți pe locurile libere, apoi Începe.
    Apasă „Mâna mea” sub masă ca să-ți vezi cărțile — doar tu le vezi: alege cărțile, apoi Deschide, Bate sau Aruncă.
    /rules — regulile · /score — scorul · /stats — clasamentul
    /settings — limba și timpul (administratori) · /stop — închide masa
help-private =
    <b>Salut! Organizez Kozel și Inimi în grupuri.</b>
    Adaugă-mă într-un grup și trimite acolo /new. Cărțile tale vor veni aici.
help-private-hand-button =
    <b>Salut! Organizez Kozel și Inimi în canalele serverelor.</b>
    Adaugă-mă pe un server și trimite /new într-un canal. Cărțile tale sunt tot acolo, sub butonul „Mâna mea” al mesei: doar tu le vezi.
start-welcome =
    <b>Bine ai venit!</b> Acum îți pot trimite cărțile.
    Întoarce-te în grup și așază-te la o masă, sau adaugă-mă într-un grup și trimite /new.
start-seated = Stai pe locul { $seat } în <b>{ $group }</b>. Cărțile îți vor veni aici.
start-seated-hand-button = Stai pe locul { $seat } în <b>{ $group }</b>. Apasă „Mâna mea” sub masă ca să-ți vezi cărțile.
game-begins = <b>{ $game }: jocul începe!</b> Cărțile tale sunt în chatul privat cu mine.
game-begins-hand-button = <b>{ $game }: jocul începe!</b> Apasă „Mâna mea” ca să-ți vezi cărțile: doar tu le vezi.
deal-begins = Runda { $deal }: împarte { $dealer }, deschide { $leader }.
rules-kozel =
    <b>Kozel</b> — patru jucători în două echipe; partenerii stau față în față.
    36 de cărți, de la mică la mare: 6 7 8 9 J Q K 10 A. Puncte: A 11, 10 10, K 4, Q 3, J 2 — 120 într-o rundă.
    Fiecare are 4 cărți. Din mijlocul pachetului se întoarce o carte: culoarea ei e atu.
    Cine deschide joacă una sau mai multe cărți de aceeași culoare. Ceilalți răspund pe rând cu tot atâtea cărți: <b>bat</b> (fiecare carte bate una dintre cele câștigătoare: mai mare de aceeași culoare sau atu) sau <b>aruncă</b> (cu fața în jos).
    Cine a bătut ultimul ia levata; toți trag până la 4 cărți, începând cu el.
    <b>Molodka</b>: patru cărți de aceeași culoare se pot juca oricând, chiar și în afara rândului, și deschid levata.
    Cu 61 de puncte câștigi runda. Învinșii primesc 2 puncte de înfrângere, 4 cu 30 sau mai puțin, 6 fără nicio levată. 60 : 60 înseamnă <b>ouă</b>: nimeni nu primește nimic.
    Echipa care ajunge la 12 puncte de înfrângere e <b>capra</b> 🐐 — cu ouă, dacă o rundă s-a terminat 60 : 60.
rules-hearts =
    <b>Inimi</b> — patru jucători, fiecare pentru el. 52 de cărți, câte 13.
    După ce s-au împărțit cărțile, pasezi 3 dintre ele: la stânga, la dreapta, în față, apoi o rundă fără pasare, și tot așa.
    2♣ deschide prima levată. Răspunde la culoare dacă poți; cea mai mare carte din culoarea deschisă ia levata.
    Fiecare ♥ valorează 1 punct, iar Q♠ 13. Nu se deschide cu inimă până nu sunt sparte inimile: o inimă jucată pe altă culoare (cu setarea „orice inimă sparge”: orice inimă jucată), decât dacă ai doar inimi; în prima levată nu se joacă puncte.
    Cu opțiunea „nimerește luna”, cine ia toate cele 26 de puncte primește 0, iar ceilalți câte 26.
    Jocul se termină când cineva atinge pragul; câștigă totalul cel mai mic.

## Masă nouă

choose-game = Ce jucăm?
lobby-title = <b>{ $game }</b> — masă nouă
lobby-created-by = Deschisă de { $name }
lobby-team = <b>Echipa { $team }</b>
lobby-partners = Partenerii stau față în față: locurile 1 și 3, locurile 2 și 4.
lobby-seat = { $seat }. { $name }
lobby-seat-free = { $seat }. — liber —
lobby-waiting =
    { RO_PLURAL($count) ->
        [one] Mai așteptăm { $count } jucător.
        [few] Mai așteptăm { $count } jucători.
       *[other] Mai așteptăm { $count } de jucători.
    }
lobby-ready = Toate locurile sunt ocupate: creatorul sau un administrator poate începe.
lobby-unreachable = ⚠️ { $name }, încă nu-ți pot scrie: apasă butonul tău de mai jos, apoi Pornește.
btn-join = Mă așez
btn-take-seat = Locul { $seat }
btn-leave = Mă ridic
btn-add-ai = Adaugă un robot
btn-start = Începe
btn-open-dm = { $name }: deschide chatul meu

## Masa

table-title = <b>{ $game }</b> · runda { $deal }
table-trump = Atu: { $card } ({ $suit })
table-stock =
    { RO_PLURAL($count) ->
        [one] Pachet: { $count } carte
        [few] Pachet: { $count } cărți
       *[other] Pachet: { $count } de cărți
    }
table-stock-empty = Pachetul s-a terminat.
table-turn = E rândul: <b>{ $name }</b>
table-turn-allowance = E rândul: <b>{ $name }</b> · ⏳ { $seconds } s pe mutare
table-to-lead = Deschide <b>{ $name }</b>.
table-played = { $name }: { $cards }
table-passed = { $name }: { $backs } (aruncate)
table-molodka = <b>{ $name }</b>: molodka!
table-last-trick =
    { RO_PLURAL($points) ->
        [one] Ultima levată: { $name } a luat { $points } punct.
        [few] Ultima levată: { $name } a luat { $points } puncte.
       *[other] Ultima levată: { $name } a luat { $points } de puncte.
    }
table-tricks =
    { RO_PLURAL($count) ->
        [one] { $team }: { $count } levată
        [few] { $team }: { $count } levate
       *[other] { $team }: { $count } de levate
    }
table-series = Seria (la { $loss } puncte de înfrângere echipa e capra):
table-defeat = { $team }: { $points }
table-eggs-seen = 🥚 În seria asta au fost deja ouă.
hearts-pass-left = la stânga
hearts-pass-right = la dreapta
hearts-pass-across = în față
hearts-no-passing = În runda asta nu se pasează cărți.
hearts-passing =
    { RO_PLURAL($count) ->
        [one] Se pasează trei cărți { $direction }: așteptăm { $count } jucător.
        [few] Se pasează trei cărți { $direction }: așteptăm { $count } jucători.
       *[other] Se pasează trei cărți { $direction }: așteptăm { $count } de jucători.
    }
hearts-broken = ♥ Inimile sunt sparte.
hearts-totals = Totaluri (jocul se termină la { $target }):
hearts-total =
    { RO_PLURAL($points) ->
        [one] { $name }: { $points } punct
        [few] { $name }: { $points } puncte
       *[other] { $name }: { $points } de puncte
    }
hearts-deal-points =
    { RO_PLURAL($points) ->
        [one] { $name }: { $points } punct în această rundă
        [few] { $name }: { $points } puncte în această rundă
       *[other] { $name }: { $points } de puncte în această rundă
    }

## Rezultate

deal-over = <b>Runda { $deal } s-a terminat</b>
deal-team-result =
    { $team }: { RO_PLURAL($points) ->
        [one] { $points } punct
        [few] { $points } puncte
       *[other] { $points } de puncte
    }, { RO_PLURAL($tricks) ->
        [one] { $tricks } levată
        [few] { $tricks } levate
       *[other] { $tricks } de levate
    }
deal-defeat =
    { RO_PLURAL($points) ->
        [one] { $team } primesc { $points } punct de înfrângere.
        [few] { $team } primesc { $points } puncte de înfrângere.
       *[other] { $team } primesc { $points } de puncte de înfrângere.
    }
deal-no-trick = { $team } n-au luat nicio levată.
deal-eggs = 🥚 <b>Ouă!</b> 60 : 60 — nimeni nu primește puncte de înfrângere.
series-score = Seria: { $first } { $a } : { $b } { $second }
series-over = <b>Seria s-a terminat</b>
series-goat = 🐐 <b>{ $team }</b> sunt capra!
series-goat-eggs = 🐐🥚 <b>{ $team }</b> sunt capra cu ouă!
hearts-deal-over = <b>Runda { $deal } s-a terminat</b>
hearts-shot-moon = 🌙 <b>{ $name }</b> a nimerit luna!
hearts-game-over = <b>Jocul s-a terminat</b>
hearts-rank =
    { RO_PLURAL($points) ->
        [one] { $place }. { $name } — { $points } punct
        [few] { $place }. { $name } — { $points } puncte
       *[other] { $place }. { $name } — { $points } de puncte
    }
hearts-winner = 🏆 Câștigă <b>{ $name }</b>!

## Mâna

hand-title = <b>{ $game }</b> · { $group }
hand-table = Pe masă:
hand-your-lead = 👉 <b>E rândul tău</b>: deschide cu una sau mai multe cărți de aceeași culoare.
hand-your-answer =
    { RO_PLURAL($count) ->
        [one] 👉 <b>E rândul tău</b>: bate sau aruncă { $count } carte.
        [few] 👉 <b>E rândul tău</b>: bate sau aruncă { $count } cărți.
       *[other] 👉 <b>E rândul tău</b>: bate sau aruncă { $count } de cărți.
    }
hand-waiting = Așteptăm: { $name }.
hand-turn-allowance = ⏳ Ai { $seconds } s pe mutare.
hand-selected = Alese: { $cards }
hand-select-hint = Atinge cărțile ca să le alegi.
hand-one-tap-hint = Atinge o carte: ⚔ bate cu ea, ↓ o aruncă cu fața în jos.
hand-can-beat = Poți bate cu: { $options }
hand-cannot-beat =
    { RO_PLURAL($count) ->
        [one] Nu ai cu ce bate: aruncă { $count } carte.
        [few] Nu ai cu ce bate: aruncă { $count } cărți.
       *[other] Nu ai cu ce bate: aruncă { $count } de cărți.
    }
hand-selection-beats = ✓ Alegerea ta bate.
hand-selection-passes = Alegerea ta nu bate; o poți arunca.
hand-molodka = Ai o <b>molodka</b>: o poți juca acum, chiar și în afara rândului.
hand-you-passed = Ai aruncat cu fața în jos: { $cards }
hand-ai-playing = 🤖 Un robot joacă în locul tău. Apasă „Revin la masă” ca să revii.
hand-series-over = Seria s-a terminat.
hand-hearts-pass = Alege trei cărți de pasat { $direction }.
hand-hearts-passed = Ai pasat { $cards }; îi așteptăm pe ceilalți.
hand-hearts-received = Ai primit: { $cards }
hand-hearts-play = 👉 <b>E rândul tău</b>: atinge o carte ca s-o joci.
hand-hearts-unplayable = Cărțile marcate cu { $mark } nu pot fi jucate acum.
btn-lead = Deschide
btn-beat = Bate
btn-pass = Aruncă
btn-molodka = Molodka!
btn-clear = Șterge alegerea
btn-hearts-pass = Pasează 3
btn-take-back = Revin la masă
btn-rematch = Revanșă (aceleași locuri)

## Ferestre scurte: reguli

err-not-your-turn = Nu e rândul tău.
err-deal-over = Runda aceasta s-a terminat.
err-series-over = Seria s-a terminat.
err-not-in-hand = { $card } nu e în mâna ta.
err-no-cards = Alege mai întâi cel puțin o carte.
err-mixed-suits = Deschiderea trebuie să fie de o singură culoare.
err-already-led = S-a deschis deja: bate sau aruncă.
err-nothing-led = Încă nu s-a deschis: deschide mai întâi.
err-wrong-count =
    { RO_PLURAL($expected) ->
        [one] Joacă exact { $expected } carte, nu { $got }.
        [few] Joacă exact { $expected } cărți, nu { $got }.
       *[other] Joacă exact { $expected } de cărți, nu { $got }.
    }
err-cannot-beat = Cărțile acestea nu bat { $target }.
err-no-molodka = Molodka înseamnă patru cărți de aceeași culoare.
err-molodka-outranked = Pe masă e deja o molodka mai aproape de cel care a deschis.
err-wrong-game = Butonul acesta e de la alt joc.
err-must-follow-suit = Trebuie să răspunzi la culoare: { $suit }.
err-hearts-not-broken = Inimile nu sunt încă sparte: deschide cu altă culoare.
err-no-points-first-trick = În prima levată nu se joacă puncte.
err-lead-two-of-clubs = Prima levată începe cu 2♣.
err-pass-three = Alege exact trei cărți de pasat.
err-already-passed = Ți-ai pasat deja cărțile.
err-not-passing = Acum nu se pasează cărți.
err-still-passing = Așteaptă până pasează toți.
err-game-over = Jocul s-a terminat.

## Ferestre scurte: restul

err-not-seated = Nu stai la această masă.
err-already-seated = Stai deja la masă.
err-table-full = Masa e plină.
err-seat-taken = Locul e ocupat.
err-stale = Butonul acesta e vechi: folosește mesajul cel mai nou.
err-menu-closed = Meniul acesta s-a închis: trimite din nou comanda pentru unul nou.
err-not-allowed = Nu ai voie să faci asta.
err-admin-only = Doar creatorul mesei sau un administrator poate face asta.
err-no-table = Aici nu e nicio masă deschisă: trimite /new.
err-table-exists = În acest chat există deja o masă.
table-shown-again = În acest chat există deja o masă: iat-o din nou, mai jos.
err-need-four = Mai întâi trebuie ocupate toate cele patru locuri.
err-game-started = Jocul a început deja.
err-group-only = Asta funcționează în chatul unde jucați, nu aici.
err-bad-button = Butonul acesta nu funcționează.
err-try-again = Ceva n-a mers; încearcă din nou.
err-too-fast = Prea multe apăsări: așteaptă puțin și apasă din nou.
err-anonymous = Nu văd cine scrie: administratorii anonimi și canalele nu pot juca. Dezactivează „Rămâi anonim” și trimite comanda din nou.
err-not-your-question = Nu e întrebarea ta: doar cine a întrebat poate răspunde.
err-other-chat = Butonul acesta e al unei mese din alt chat: folosește-l acolo.
told-in-group = { $name }, nu-ți pot scrie în privat (deschide chatul meu și apasă Pornește), așa că răspund aici:
told-from = În grupul <b>{ $group }</b>:

## Timp

timer-reminder-dm = ⏰ Mai ai { $seconds } s pentru mutare.
timer-auto-played = ⌛ { $name }: timpul s-a terminat; s-a făcut o mutare sigură.
timer-handed-to-ai =
    { RO_PLURAL($count) ->
        [one] 🤖 { $name }: { $count } mutare ratată; un robot joacă pe acest loc până la întoarcere.
        [few] 🤖 { $name }: { $count } mutări ratate la rând; un robot joacă pe acest loc până la întoarcere.
       *[other] 🤖 { $name }: { $count } de mutări ratate la rând; un robot joacă pe acest loc până la întoarcere.
    }
timer-took-back = 👋 { $name } a revenit la masă.
unreachable-to-ai = 🤖 { $name }: nu-ți mai pot scrie în privat; un robot joacă pe locul tău până îmi scrii din nou.

## Setări

settings-title = <b>Setări</b>
settings-language = Limba: { $lang }
settings-timer = Timp de mutare: { $seconds } s
settings-timer-none = Timp de mutare: nelimitat
settings-hearts-target =
    { RO_PLURAL($points) ->
        [one] Inimi se joacă până la { $points } punct
        [few] Inimi se joacă până la { $points } puncte
       *[other] Inimi se joacă până la { $points } de puncte
    }
settings-saved = Salvat.
settings-moon-on = Nimerește luna: activat
settings-moon-off = Nimerește luna: dezactivat
btn-moon-on = Nimerește luna: da
btn-moon-off = Nimerește luna: nu
settings-break-any = Inimile sunt sparte de orice inimă jucată
settings-break-discard = Inimile sunt sparte doar de o inimă jucată pe altă culoare
btn-break-any = Inimi sparte: orice inimă
btn-break-discard = Inimi sparte: pe altă culoare
btn-seconds = { $seconds } s
btn-no-limit = Nelimitat
btn-points =
    { RO_PLURAL($points) ->
        [one] { $points } punct
        [few] { $points } puncte
       *[other] { $points } de puncte
    }
lang-choose = Alege limba chatului:
lang-set = Limba: { $lang }

## Scor și statistici

score-none = Aici nu se joacă acum. Trimite /new ca să deschizi o masă.
stats-title = <b>Clasament</b>
stats-line =
    { $place }. { $name } — { RO_PLURAL($games) ->
        [one] { $games } joc
        [few] { $games } jocuri
       *[other] { $games } de jocuri
    }, { RO_PLURAL($wins) ->
        [one] { $wins } victorie
        [few] { $wins } victorii
       *[other] { $wins } de victorii
    }
stats-goats =
    { RO_PLURAL($count) ->
        [one] 🐐 capră o dată
        [few] 🐐 capră de { $count } ori
       *[other] 🐐 capră de { $count } de ori
    }
stats-empty = Încă nu sunt jocuri terminate în acest chat.

## Închidere și scoatere

stop-confirm = Închizi masa? Jocul în desfășurare se pierde.
stop-kept = Masa nu s-a închis: jocul continuă.
btn-stop-yes = Da, închide
btn-stop-no = Nu, jucăm mai departe
stopped = Masa a fost închisă de { $name }.
kicked = { $name } a plecat de la masă; un robot îi ia locul.
kick-how = Răspunde la mesajul unui jucător cu /kick.

## Discord

discord-my-hand = Mâna mea
discord-your-turn = e rândul tău
discord-press-my-hand = apasă „Mâna mea” ca să-ți vezi cărțile
discord-pick-cards = Alege cărțile
discord-no-hand = Nu ai cărți la această masă.

## Livrare

lobby-started = Jocul a început: masa este mai jos.

## Mini aplicația

webapp-open = 🃏 Deschide masa
webapp-link = 🃏 Joacă în aplicație
webapp-your-cards = Cărțile tale
webapp-spectator = Privești: nu ai un loc la această masă.
webapp-reconnecting = Se reconectează…
webapp-table = Masa
webapp-unauthorized = Deschide această pagină din Telegram: autentificarea lipsește, e prea veche sau nu e validă.
webapp-forbidden = La această masă poți juca doar pentru locul tău.
webapp-no-table = Această masă nu mai este deschisă.
