# kozyr — português.
# As mensagens são HTML do Telegram, exceto as chaves `plain` em src/i18n.rs
# (botões, avisos, descrições de comandos): estas não têm marcação.
# Em português o 0 cai na forma "one"; onde o 0 pode aparecer há uma variante [0].
#
# O nome de um jogador nunca pede gênero: «{ $name }: …», «Vez de { $name }».
#
# Glossário — uma palavra para cada coisa, em todas as mensagens:
#   trunfo · vaza · abrir (a vaza: as primeiras cartas) · bater ·
#   descartar (Kozel: cartas viradas para baixo em vez de bater) ·
#   passar (Copas: três cartas depois da distribuição) · fora do naipe (Copas) ·
#   copas quebradas · robô (um lugar que o computador joga) ·
#   o bot (o próprio kozyr, «eu») · rodada (cada distribuição) · mão (as cartas
#   de quem joga) · partida (Kozel) · jogo (Copas) · lugar · mesa.
# rejeitado: abertas, Bem-vindo, sentado, por ele, perdeu, descartada em

## Idiomas e jogos

language-name = Português
game-kozel = Kozel
game-hearts = Copas
suit-spades = espadas
suit-hearts = copas
suit-diamonds = ouros
suit-clubs = paus
team-name = { $first } e { $second }
ai-player = 🤖 Robô { $number }
ai-stand-in = 🤖 por { $name }

## Descrições dos comandos

cmd-new = Abrir uma mesa (Kozel ou Copas)
cmd-kozel = Abrir uma mesa de Kozel
cmd-hearts = Abrir uma mesa de Copas
cmd-help = Como jogar com este bot
cmd-rules = As regras, em resumo
cmd-score = O placar desta mesa
cmd-stats = A classificação deste chat
cmd-settings = Idioma, tempo por jogada, opções (admins)
cmd-stop = Fechar a mesa (criador ou admin)
cmd-kick = Remover um jogador: responda a ele (admin)
cmd-lang = Mudar o idioma do chat

## Ajuda, regras, primeiros passos

help-group =
    <b>Kozel e Copas para quatro</b>
    /new — abre uma mesa e escolhe o jogo (atalhos: /kozel, /hearts)
    Sente-se com os botões, ponha robôs nos lugares vazios e toque em Começar.
    Suas cartas chegam numa mensagem privada minha: toque nas cartas para escolhê-las e depois em Abrir, Bater ou Descartar.
    /rules — regras · /score — placar · /stats — classificação
    /settings — idioma e tempo (admins) · /stop — fechar a mesa
help-group-hand-button =
    <b>Kozel e Copas para quatro</b>
    /new — abre uma mesa e escolhe o jogo (atalhos: /kozel, /hearts)
    Sente-se com os botões, ponha robôs nos lugares vazios e toque em Começar.
    Toque em “Minha mão” embaixo da mesa para ver suas cartas — só você as vê: escolha as cartas e depois toque em Abrir, Bater ou Descartar.
    /rules — regras · /score — placar · /stats — classificação
    /settings — idioma e tempo (admins) · /stop — fechar a mesa
help-private =
    <b>Olá! Eu organizo partidas de Kozel e Copas em grupos.</b>
    Adicione-me a um grupo e envie /new lá. Suas cartas vão chegar aqui, neste chat.
help-private-hand-button =
    <b>Olá! Eu organizo partidas de Kozel e Copas em canais de servidores.</b>
    Adicione-me a um servidor e envie /new num canal. Suas cartas ficam lá também, no botão “Minha mão” da mesa: só você as vê.
start-welcome =
    <b>Boas-vindas!</b> Agora posso enviar suas cartas.
    Volte ao grupo e sente-se a uma mesa, ou adicione-me a um grupo e envie /new.
start-seated = Você está no lugar { $seat } em <b>{ $group }</b>. Suas cartas vão chegar aqui.
start-seated-hand-button = Você está no lugar { $seat } em <b>{ $group }</b>. Toque em “Minha mão” embaixo da mesa para ver suas cartas.
game-begins = <b>{ $game }: o jogo começou!</b> Suas cartas estão no seu chat privado comigo.
game-begins-hand-button = <b>{ $game }: o jogo começou!</b> Toque em “Minha mão” para ver suas cartas: só você as vê.
deal-begins = Rodada { $deal }: quem dá as cartas é { $dealer }, quem abre é { $leader }.
rules-kozel =
    <b>Kozel</b> — quatro jogadores em duas duplas; os parceiros sentam frente a frente.
    36 cartas, da menor à maior: 6 7 8 9 J Q K 10 A (valete, dama, rei, dez, ás). Pontos: A 11, 10 10, K 4, Q 3, J 2 — 120 por rodada.
    Cada um tem 4 cartas. Vira-se uma carta do meio do monte: o naipe dela é o trunfo.
    Quem abre joga uma ou mais cartas de um naipe. Cada um, na sua vez, responde com o mesmo número de cartas: <b>bate</b> (cada carta bate uma das que estão ganhando: maior do mesmo naipe, ou trunfo) ou <b>descarta</b> (viradas para baixo).
    Quem bateu por último leva a vaza; todos compram até 4, a começar por quem a levou.
    <b>Molodka</b>: quatro cartas do mesmo naipe podem ser jogadas a qualquer momento, mesmo fora da vez, e passam a abrir a vaza.
    Com 61 pontos ganha-se a rodada. Os perdedores levam 2 pontos de derrota, 4 com 30 ou menos, 6 sem nenhuma vaza. 60 : 60 são <b>bolas</b>: ninguém leva nada.
    A dupla que chega a 12 pontos de derrota é o <b>bode</b> 🐐 — com bolas, se alguma rodada terminou 60 : 60.
rules-hearts =
    <b>Copas</b> — quatro jogadores, cada um por si. 52 cartas, 13 para cada.
    Depois que as cartas são distribuídas, passe 3 delas: à esquerda, à direita, em frente, depois uma rodada sem passar, e assim por diante.
    O 2♣ abre a primeira vaza. Siga o naipe se puder; a maior carta do naipe que abriu a vaza leva a vaza.
    Cada ♥ vale 1 ponto e a Q♠ 13. Não se abre com copas antes de as copas serem quebradas: uma copas jogada fora do naipe (com a opção “qualquer copas quebra”: qualquer copas jogada), a menos que só tenha copas; na primeira vaza não se jogam pontos.
    Com a opção “acertar a lua”, quem leva os 26 pontos marca 0 e todos os outros levam 26.
    O jogo termina quando alguém chega ao limite; ganha o menor total.

## Mesa nova

choose-game = Que jogo vamos jogar?
lobby-title = <b>{ $game }</b> — mesa nova
lobby-created-by = Aberta por { $name }
lobby-team = <b>Dupla { $team }</b>
lobby-partners = Os parceiros sentam frente a frente: lugares 1 e 3, lugares 2 e 4.
lobby-seat = { $seat }. { $name }
lobby-seat-free = { $seat }. — livre —
lobby-waiting =
    { $count ->
        [one] Falta { $count } jogador.
       *[other] Faltam { $count } jogadores.
    }
lobby-ready = Todos os lugares estão ocupados: o criador ou um admin pode começar.
lobby-unreachable = ⚠️ { $name }, ainda não consigo escrever para você: toque no seu botão abaixo e depois em Iniciar.
btn-join = Sentar
btn-take-seat = Lugar { $seat }
btn-leave = Sair da mesa
btn-add-ai = Pôr um robô
btn-start = Começar
btn-open-dm = { $name }: abrir meu chat

## A mesa

table-title = <b>{ $game }</b> · rodada { $deal }
table-trump = Trunfo: { $card } ({ $suit })
table-stock =
    { $count ->
        [0] Monte: { $count } cartas
        [one] Monte: { $count } carta
       *[other] Monte: { $count } cartas
    }
table-stock-empty = O monte acabou.
table-turn = Vez de <b>{ $name }</b>
table-turn-allowance = Vez de <b>{ $name }</b> · ⏳ { $seconds } s por jogada
table-to-lead = Quem abre: <b>{ $name }</b>.
table-played = { $name }: { $cards }
table-passed = { $name }: { $backs } (descartadas)
table-molodka = Molodka de <b>{ $name }</b>!
table-last-trick =
    { $points ->
        [0] Última vaza: { $name } levou { $points } pontos.
        [one] Última vaza: { $name } levou { $points } ponto.
       *[other] Última vaza: { $name } levou { $points } pontos.
    }
table-tricks =
    { $count ->
        [0] { $team }: { $count } vazas
        [one] { $team }: { $count } vaza
       *[other] { $team }: { $count } vazas
    }
table-series = Partida (com { $loss } pontos de derrota a dupla é o bode):
table-defeat = { $team }: { $points }
table-eggs-seen = 🥚 Já houve bolas nesta partida.
hearts-pass-left = à esquerda
hearts-pass-right = à direita
hearts-pass-across = em frente
hearts-no-passing = Nesta rodada não se passam cartas.
hearts-passing =
    { $count ->
        [one] Passando três cartas { $direction }: falta { $count } jogador.
       *[other] Passando três cartas { $direction }: faltam { $count } jogadores.
    }
hearts-broken = ♥ As copas foram quebradas.
hearts-totals = Totais (o jogo termina em { $target }):
hearts-total =
    { $points ->
        [0] { $name }: { $points } pontos
        [one] { $name }: { $points } ponto
       *[other] { $name }: { $points } pontos
    }
hearts-deal-points =
    { $points ->
        [0] { $name }: { $points } pontos nesta rodada
        [one] { $name }: { $points } ponto nesta rodada
       *[other] { $name }: { $points } pontos nesta rodada
    }

## Resultados

deal-over = <b>Fim da rodada { $deal }</b>
deal-team-result =
    { $team }: { $points ->
        [0] { $points } pontos
        [one] { $points } ponto
       *[other] { $points } pontos
    }, { $tricks ->
        [0] { $tricks } vazas
        [one] { $tricks } vaza
       *[other] { $tricks } vazas
    }
deal-defeat =
    { $points ->
        [one] { $team } levam { $points } ponto de derrota.
       *[other] { $team } levam { $points } pontos de derrota.
    }
deal-no-trick = { $team } não levaram nenhuma vaza.
deal-eggs = 🥚 <b>Bolas!</b> 60 : 60 — ninguém leva pontos de derrota.
series-score = Partida: { $first } { $a } : { $b } { $second }
series-over = <b>Fim da partida</b>
series-goat = 🐐 <b>{ $team }</b> são o bode!
series-goat-eggs = 🐐🥚 <b>{ $team }</b> são o bode com bolas!
hearts-deal-over = <b>Fim da rodada { $deal }</b>
hearts-shot-moon = 🌙 <b>{ $name }</b> acertou a lua!
hearts-game-over = <b>Fim de jogo</b>
hearts-rank =
    { $points ->
        [0] { $place }. { $name } — { $points } pontos
        [one] { $place }. { $name } — { $points } ponto
       *[other] { $place }. { $name } — { $points } pontos
    }
hearts-winner = 🏆 <b>{ $name }</b> venceu!

## A mão

hand-title = <b>{ $game }</b> · { $group }
hand-table = Na mesa:
hand-your-lead = 👉 <b>Sua vez</b>: abra a vaza com uma ou mais cartas de um naipe.
hand-your-answer =
    { $count ->
        [one] 👉 <b>Sua vez</b>: bata ou descarte { $count } carta.
       *[other] 👉 <b>Sua vez</b>: bata ou descarte { $count } cartas.
    }
hand-waiting = Esperando { $name }.
hand-turn-allowance = ⏳ Você tem { $seconds } s por jogada.
hand-selected = Escolhidas: { $cards }
hand-select-hint = Toque nas cartas para escolhê-las.
hand-one-tap-hint = Toque em uma carta: ⚔ bate com ela, ↓ a descarta virada para baixo.
hand-can-beat = Dá para bater com: { $options }
hand-cannot-beat =
    { $count ->
        [one] Nada bate: descarte { $count } carta.
       *[other] Nada bate: descarte { $count } cartas.
    }
hand-selection-beats = ✓ Sua escolha bate.
hand-selection-passes = Sua escolha não bate; você pode descartá-la.
hand-molodka = Você tem uma <b>molodka</b>: pode jogá-la agora, mesmo fora da vez.
hand-you-passed = Você descartou viradas para baixo: { $cards }
hand-ai-playing = 🤖 Um robô está jogando por você. Toque em “Voltar à mesa” para voltar.
hand-series-over = A partida terminou.
hand-hearts-pass = Escolha três cartas para passar { $direction }.
hand-hearts-passed = Você passou { $cards }; esperando os outros.
hand-hearts-received = Você recebeu: { $cards }
hand-hearts-play = 👉 <b>Sua vez</b>: toque numa carta para jogá-la.
hand-hearts-unplayable = As cartas marcadas com { $mark } não podem ser jogadas agora.
btn-lead = Abrir
btn-beat = Bater
btn-pass = Descartar
btn-molodka = Molodka!
btn-clear = Limpar
btn-hearts-pass = Passar 3
btn-take-back = Voltar à mesa
btn-rematch = Revanche (mesmos lugares)

## Avisos: regras

err-not-your-turn = Não é a sua vez.
err-deal-over = Esta rodada terminou.
err-series-over = A partida terminou.
err-not-in-hand = { $card } não está na sua mão.
err-no-cards = Escolha pelo menos uma carta.
err-mixed-suits = Abra a vaza com cartas de um só naipe.
err-already-led = A vaza já foi aberta: bata ou descarte.
err-nothing-led = A vaza ainda não foi aberta: abra primeiro.
err-wrong-count =
    { $expected ->
        [one] Jogue exatamente { $expected } carta, não { $got }.
       *[other] Jogue exatamente { $expected } cartas, não { $got }.
    }
err-cannot-beat = Estas cartas não batem { $target }.
err-no-molodka = Molodka são quatro cartas do mesmo naipe.
err-molodka-outranked = Já há na mesa uma molodka mais perto de quem abriu.
err-wrong-game = Este botão é de outro jogo.
err-must-follow-suit = Siga o naipe: jogue { $suit }.
err-hearts-not-broken = As copas ainda não foram quebradas: abra com outro naipe.
err-no-points-first-trick = Na primeira vaza não se jogam pontos.
err-lead-two-of-clubs = A primeira vaza começa com o 2♣.
err-pass-three = Escolha exatamente três cartas para passar.
err-already-passed = Você já passou as suas cartas.
err-not-passing = Agora não se passam cartas.
err-still-passing = Espere todos passarem as cartas.
err-game-over = O jogo terminou.

## Avisos: o resto

err-not-seated = Você não tem lugar nesta mesa.
err-already-seated = Você já tem um lugar nesta mesa.
err-table-full = A mesa está cheia.
err-seat-taken = Este lugar está ocupado.
err-stale = Este botão está desatualizado: use a mensagem mais recente.
err-menu-closed = Este menu já foi fechado: envie o comando de novo para abrir outro.
err-not-allowed = Você não pode fazer isso.
err-admin-only = Só o criador da mesa ou um admin pode fazer isso.
err-no-table = Não há mesa aberta aqui: envie /new.
err-table-exists = Já há uma mesa neste chat.
table-shown-again = Já há uma mesa neste chat: aqui está ela de novo, abaixo.
err-need-four = Primeiro os quatro lugares devem estar ocupados.
err-game-started = O jogo já começou.
err-group-only = Isto funciona no chat onde vocês jogam, não aqui.
err-bad-button = Este botão não funciona.
err-try-again = Algo deu errado; tente de novo.
err-too-fast = Muitos toques: espere um momento e toque de novo.
err-anonymous = Não consigo ver quem está escrevendo: administradores anônimos e canais não podem jogar. Desative "Permanecer anônimo" e envie o comando de novo.
err-not-your-question = Esta pergunta não é sua: só quem perguntou pode responder.
err-other-chat = Este botão é de uma mesa em outro chat: use-o lá.
told-in-group = { $name }, não consigo escrever para você no privado (abra meu chat e toque em Iniciar), então respondo aqui:
told-from = No grupo <b>{ $group }</b>:

## Tempo

timer-reminder-dm = ⏰ Faltam { $seconds } s para a sua jogada.
timer-auto-played = ⌛ { $name }: o tempo acabou, e foi feita uma jogada segura.
timer-handed-to-ai =
    { $count ->
        [one] 🤖 { $name }: { $count } vez sem jogar; um robô joga neste lugar até a volta.
       *[other] 🤖 { $name }: { $count } vezes seguidas sem jogar; um robô joga neste lugar até a volta.
    }
timer-took-back = 👋 { $name } voltou à mesa.
unreachable-to-ai = 🤖 { $name }: não consigo mais escrever para você no privado; um robô joga no seu lugar até você me escrever de novo.

## Configurações

settings-title = <b>Configurações</b>
settings-language = Idioma: { $lang }
settings-timer = Tempo por jogada: { $seconds } s
settings-timer-none = Tempo por jogada: sem limite
settings-hearts-target = Copas termina em { $points } pontos
settings-saved = Salvo.
settings-moon-on = Acertar a lua: ligado
settings-moon-off = Acertar a lua: desligado
btn-moon-on = Acertar a lua: ligado
btn-moon-off = Acertar a lua: desligado
settings-break-any = As copas são quebradas por qualquer copas jogada
settings-break-discard = As copas só são quebradas por uma copas jogada fora do naipe
btn-break-any = Quebrar copas: qualquer copas
btn-break-discard = Quebrar copas: só fora do naipe
btn-seconds = { $seconds } s
btn-no-limit = Sem limite
btn-points =
    { $points ->
        [one] { $points } ponto
       *[other] { $points } pontos
    }
lang-choose = Escolha o idioma do chat:
lang-set = Idioma: { $lang }

## Placar e estatísticas

score-none = Ninguém está jogando aqui. Envie /new para abrir uma mesa.
stats-title = <b>Classificação</b>
stats-line =
    { $place }. { $name } — { $games ->
        [0] { $games } jogos
        [one] { $games } jogo
       *[other] { $games } jogos
    }, { $wins ->
        [0] { $wins } vitórias
        [one] { $wins } vitória
       *[other] { $wins } vitórias
    }
stats-goats =
    { $count ->
        [0] 🐐 nunca foi o bode
        [one] 🐐 bode { $count } vez
       *[other] 🐐 bode { $count } vezes
    }
stats-empty = Ainda não há jogos terminados neste chat.

## Fechar e remover

stop-confirm = Fechar esta mesa? O jogo em andamento será perdido.
stop-kept = A mesa não foi fechada: o jogo continua.
btn-stop-yes = Sim, fechar
btn-stop-no = Não, continuar
stopped = A mesa foi fechada por { $name }.
kicked = { $name } saiu da mesa; um robô fica no lugar.
kick-how = Responda à mensagem de um jogador com /kick.

## Discord

discord-my-hand = Minha mão
discord-your-turn = é a sua vez
discord-press-my-hand = toque em “Minha mão” para ver suas cartas
discord-pick-cards = Escolha as cartas
discord-no-hand = Você não tem cartas nesta mesa.

## Entrega

lobby-started = O jogo começou: a mesa está abaixo.

## O Mini App

webapp-open = 🃏 Abrir a mesa
webapp-link = 🃏 Jogar no app
webapp-your-cards = Suas cartas
webapp-spectator = Você está assistindo: não tem lugar nesta mesa.
webapp-reconnecting = Reconectando…
webapp-table = Mesa
webapp-unauthorized = Abra esta página pelo Telegram: o login está ausente, é antigo demais ou não é válido.
webapp-forbidden = Nesta mesa você só pode jogar pelo seu próprio lugar.
webapp-no-table = Esta mesa não está mais aberta.
