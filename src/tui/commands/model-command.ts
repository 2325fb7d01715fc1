// /model: lists the server's models (model/list) to pick from, or takes a name; the next turn
// starts with that model (`turn/start {model}`).
import { errorAction } from "../hooks/use-agent-session.ts";
import { notice, type SlashCommand } from "./slash-command.ts";

export const modelCommand: SlashCommand = {
  name: "model",
  description: "pick the model for the next turn",
  answersWithPicker: (args) => args === "",
  argumentHint: "[name]",
  async run(args, context) {
    const choose = (model: string): void => {
      context.setNextModel(model);
      notice(context, `The next turn uses ${model}.`);
    };
    if (args !== "") {
      choose(args);
      return;
    }
    try {
      const { models, defaultModel } = await context.client.request("model/list", {});
      context.pick({
        title: "Model for the next turn",
        options: models.map((model) => ({
          value: model.id,
          label: model.id,
          detail: [model.engine, model.id === defaultModel ? "default" : undefined]
            .filter((part) => part !== undefined)
            .join(", "),
        })),
        onPick: choose,
      });
    } catch (error) {
      context.dispatch(errorAction(error));
    }
  },
};
