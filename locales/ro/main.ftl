# kozyr — română.
# Mesajele sunt HTML Telegram, în afară de cheile `plain` din src/i18n.rs
# (butoane, ferestre scurte, descrieri de comenzi): acestea nu au marcaje.
# Plurale: one (1), few (0, 2–19, 101–119…), other (20+: „20 de cărți”).
# RO_PLURAL (src/i18n.rs) alege forma: intl_pluralrules greșește la 102–119.

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
deal-begins = Mâna { $deal }: a împărțit { $dealer }, deschide { $leader }.
rules-kozel =
    <b>Kozel</b> — patru jucători în două echipe; partenerii stau față în față.
    36 de cărți, de la mică la mare: 6 7 8 9 J Q K 10 A. Puncte: as 11, zece 10, popă 4, damă 3, valet 2 — 120 într-o mână.
    Fiecare are 4 cărți. Din mijlocul pachetului se întoarce o carte: culoarea ei e atu.
    Cine deschide joacă una sau mai multe cărți de aceeași culoare. Ceilalți răspund pe rând cu tot atâtea cărți: <b>bat</b> (fiecare carte bate una dintre cele câștigătoare: mai mare de aceeași culoare sau atu) sau <b>aruncă</b> (cu fața în jos).
    Cine a bătut ultimul ia levata; toți trag până la 4 cărți, începând cu el.
    <b>Molodka</b>: patru cărți de aceeași culoare se pot juca oricând, chiar și în afara rândului, și deschid levata.
    Cu 61 de puncte câștigi mâna. Învinșii primesc 2 puncte de înfrângere, 4 cu 30 sau mai puțin, 6 fără nicio levată. 60 : 60 înseamnă <b>ouă</b>: nimeni nu primește nimic.
    Echipa care ajunge la 12 puncte de înfrângere e <b>capra</b> 🐐 — cu ouă, dacă o mână s-a terminat 60 : 60.
rules-hearts =
    <b>Inimi</b> — patru jucători, fiecare pentru el. 52 de cărți, câte 13.
    Înainte de fiecare mână dai 3 cărți: la stânga, la dreapta, în față, apoi fără schimb.
    2♣ deschide prima levată. Răspunde la culoare dacă poți; cea mai mare carte din culoarea deschisă ia levata.
    Fiecare ♥ valorează 1 punct, iar Q♠ 13. Nu se deschide cu inimă până nu s-a aruncat una pe altă culoare (cu setarea „orice inimă deschide”: până nu s-a jucat una), decât dacă ai doar inimi; în prima levată nu se joacă puncte.
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

table-title = <b>{ $game }</b> · mâna { $deal }
table-trump = Atu: { $card } ({ $suit })
table-stock =
    { RO_PLURAL($count) ->
        [one] Pachet: { $count } carte
        [few] Pachet: { $count } cărți
       *[other] Pachet: { $count } de cărți
    }
table-stock-empty = Pachetul s-a terminat.
table-turn = La mutare: <b>{ $name }</b>
table-turn-allowance = La mutare: <b>{ $name }</b> · ⏳ { $seconds } s pe mutare
table-to-lead = Deschide <b>{ $name }</b>.
table-played = { $name }: { $cards }
table-passed = { $name }: { $backs } (aruncate)
table-winning = Câștigă: { $name }
table-molodka = Molodka lui <b>{ $name }</b>!
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
hearts-no-passing = În mâna asta nu se dau cărți.
hearts-passing =
    { RO_PLURAL($count) ->
        [one] Se dau trei cărți { $direction }: așteptăm { $count } jucător.
        [few] Se dau trei cărți { $direction }: așteptăm { $count } jucători.
       *[other] Se dau trei cărți { $direction }: așteptăm { $count } de jucători.
    }
hearts-broken = ♥ Inimile au fost deschise.
hearts-totals = Totaluri (jocul se termină la { $target }):
hearts-total =
    { RO_PLURAL($points) ->
        [one] { $name }: { $points } punct
        [few] { $name }: { $points } puncte
       *[other] { $name }: { $points } de puncte
    }
hearts-deal-points =
    { RO_PLURAL($points) ->
        [one] { $name }: { $points } punct în această mână
        [few] { $name }: { $points } puncte în această mână
       *[other] { $name }: { $points } de puncte în această mână
    }

## Rezultate

deal-over = <b>Mâna { $deal } s-a terminat</b>
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
hearts-deal-over = <b>Mâna { $deal } s-a terminat</b>
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
hand-your-lead = 👉 <b>Ești la mutare</b>: deschide cu una sau mai multe cărți de aceeași culoare.
hand-your-answer =
    { RO_PLURAL($count) ->
        [one] 👉 <b>Ești la mutare</b>: bate sau aruncă { $count } carte.
        [few] 👉 <b>Ești la mutare</b>: bate sau aruncă { $count } cărți.
       *[other] 👉 <b>Ești la mutare</b>: bate sau aruncă { $count } de cărți.
    }
hand-waiting = Îl așteptăm pe { $name }.
hand-turn-allowance = ⏳ Ai { $seconds } s pe mutare.
hand-selected = Alese: { $cards }
hand-select-hint = Atinge cărțile ca să le alegi.
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
hand-deal-over = Mâna s-a terminat: rezultatele sunt în grup.
hand-series-over = Seria s-a terminat.
hand-hearts-pass = Alege trei cărți de dat { $direction }.
hand-hearts-passed = Ai dat { $cards }; îi așteptăm pe ceilalți.
hand-hearts-received = Ai primit: { $cards }
hand-hearts-play = 👉 <b>Ești la mutare</b>: atinge o carte ca s-o joci.
hand-hearts-unplayable = Cărțile marcate cu { $mark } nu pot fi jucate acum.
btn-lead = Deschide
btn-beat = Bate
btn-pass = Aruncă
btn-molodka = Molodka!
btn-clear = Șterge alegerea
btn-hearts-pass = Dă 3
btn-take-back = Revin la masă
btn-rematch = Revanșă (aceleași locuri)

## Ferestre scurte: reguli

err-not-your-turn = Nu ești la mutare.
err-deal-over = Mâna aceasta s-a terminat.
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
err-hearts-not-broken = Inimile nu sunt încă deschise: deschide cu altă culoare.
err-no-points-first-trick = În prima levată nu se joacă puncte.
err-lead-two-of-clubs = Prima levată începe cu 2♣.
err-pass-three = Alege exact trei cărți de dat.
err-already-passed = Ți-ai dat deja cărțile.
err-not-passing = Acum nu se dau cărți.
err-still-passing = Așteaptă până își dau toți cărțile.
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
err-cannot-dm = Nu-ți pot scrie: deschide chatul meu, apasă Pornește și încearcă din nou.
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

timer-reminder = ⏰ { $name }, mai ai { $seconds } s pentru mutare.
timer-reminder-dm = ⏰ Mai ai { $seconds } s pentru mutare.
timer-auto-played = ⌛ Timpul lui { $name } s-a terminat; s-a jucat o mutare sigură în locul lui.
timer-handed-to-ai =
    { RO_PLURAL($count) ->
        [one] 🤖 { $name } a ratat { $count } mutare la rând; un robot joacă în locul lui până revine.
        [few] 🤖 { $name } a ratat { $count } mutări la rând; un robot joacă în locul lui până revine.
       *[other] 🤖 { $name } a ratat { $count } de mutări la rând; un robot joacă în locul lui până revine.
    }
timer-took-back = 👋 { $name } a revenit la masă.
unreachable-to-ai = 🤖 Botul nu-i mai poate scrie lui { $name }; un robot joacă în locul lui până când îi scrie din nou botului.

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
settings-break-any = Inimile se deschid cu orice inimă jucată
settings-break-discard = Inimile se deschid doar cu o inimă aruncată pe altă culoare
btn-break-any = Deschidere inimi: orice inimă
btn-break-discard = Deschidere inimi: doar aruncare
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
